"""Gate parsing and decisions on hand-built Reports: min vs max, undefined fails, interval bounds, repeats;
drop gates on hand-built comparisons with a baseline."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ragmon.baseline import Baseline, BaselineExample, Comparison, compare
from ragmon.cli import main
from ragmon.errors import InputError
from ragmon.gate import (
    EXIT_BREACHED,
    EXIT_ERROR,
    EXIT_OK,
    DropGate,
    Gate,
    GateResult,
    combine,
    decide,
    decide_drops,
    exit_code,
    fmt_pair,
    parse_drop,
    parse_drops,
    parse_gate,
    parse_gates,
)
from ragmon.metrics.aggregate import aggregate
from ragmon.model import METRIC_NAMES, Aggregate, EvalConfig, Example, ExampleResult, Report
from ragmon.options import Flag
from ragmon.report import text


def report_with(aggregates: dict[str, Aggregate],
                values: dict[str, list[float | None]] | None = None) -> Report:
    columns = values or {}
    n = max((len(col) for col in columns.values()), default=0)
    results = tuple(
        ExampleResult(Example(f"e{i}", "q"), "lexical", {name: col[i] for name, col in columns.items()}, ())
        for i in range(n))
    return Report({"name": "lexical"}, 5, results, aggregates)


def without_ragmon_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of `main` as in a clean CI job: a developer's own RAGMON_* settings would change it."""
    for name in [name for name in os.environ if name.startswith("RAGMON_") or name == "GITHUB_STEP_SUMMARY"]:
        monkeypatch.delenv(name)


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


@pytest.mark.parametrize(("flag", "text", "message"), [
    # A comparison, as thresholds are often written: was "unknown metric 'groundedness>'".
    ("--gate", "groundedness>=0.85", "--gate 'groundedness>=0.85': write NAME=VALUE, without a comparison "
                                     "(groundedness=0.85): groundedness is always a minimum"),
    ("--gate", "hallucination_rate < 0.1", "--gate 'hallucination_rate < 0.1': write NAME=VALUE, without a "
                                           "comparison (hallucination_rate=0.1): hallucination_rate is "
                                           "always a maximum"),
    ("--gate", "groundedness<=0.85", "--gate 'groundedness<=0.85': write NAME=VALUE, without a comparison "
                                     "(groundedness=0.85): groundedness is always a minimum"),
    ("--gate", "latency>=0.9", "--gate 'latency>=0.9': unknown metric 'latency'; valid names: "
                               + ", ".join(METRIC_NAMES)),
    # A comparison and a percentage: the form told is one that is taken, not `groundedness=85%` (refused
    # in turn); and the signs a document or a chat pastes.
    ("--gate", "groundedness>=85%", "--gate 'groundedness>=85%': write NAME=VALUE, without a comparison "
                                    "(groundedness=0.85): groundedness is always a minimum"),
    ("--gate", "groundedness>=85", "--gate 'groundedness>=85': write NAME=VALUE, without a comparison "
                                   "(groundedness=0.85): groundedness is always a minimum"),
    ("--max-drop", "groundedness>=5%", "--max-drop 'groundedness>=5%': write NAME=DELTA, without a "
                                       "comparison (groundedness=0.05): a --max-drop DELTA is always a "
                                       "maximum, the most groundedness may fall below the baseline's"),
    ("--gate", "groundedness≥0.85", "--gate 'groundedness≥0.85': write NAME=VALUE, without a comparison "
                                    "(groundedness=0.85): groundedness is always a minimum"),
    ("--gate", "hallucination_rate ≤ 10%", "--gate 'hallucination_rate ≤ 10%': write NAME=VALUE, without a "
                                           "comparison (hallucination_rate=0.1): hallucination_rate is "
                                           "always a maximum"),
    # A percentage: the share to write instead.
    ("--gate", "groundedness=85%", "--gate 'groundedness=85%': threshold '85%' is not a number (write 0.85 "
                                   "for 85%)"),
    ("--gate", "groundedness=85", "--gate 'groundedness=85': threshold must be between 0 and 1 (write 0.85 "
                                  "for 85%)"),
    ("--max-drop", "groundedness=2%", "--max-drop 'groundedness=2%': drop '2%' is not a number (write 0.02 "
                                      "for 2%)"),
    ("--gate", "groundedness=150", "--gate 'groundedness=150': threshold must be between 0 and 1"),
])
def test_a_threshold_written_another_way_is_refused_saying_how_to_write_it(flag: str, text: str,
                                                                           message: str) -> None:
    parse = parse_gate if flag == "--gate" else parse_drop
    with pytest.raises(InputError) as info:
        parse(text)
    assert str(info.value) == message


@pytest.mark.parametrize(("text", "message"), [
    # A drop limit is the most a metric may worsen, a maximum: "groundedness is always a minimum" said the
    # opposite of what --max-drop does with the number.
    ("groundedness>=0.02", "--max-drop 'groundedness>=0.02': write NAME=DELTA, without a comparison "
                           "(groundedness=0.02): a --max-drop DELTA is always a maximum, the most "
                           "groundedness may fall below the baseline's"),
    ("hallucination_rate<0.03", "--max-drop 'hallucination_rate<0.03': write NAME=DELTA, without a "
                                "comparison (hallucination_rate=0.03): a --max-drop DELTA is always a "
                                "maximum, the most hallucination_rate may rise above the baseline's"),
])
def test_a_drop_limit_written_with_a_comparison_is_called_a_maximum(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_drop(text)
    assert str(info.value) == message


@pytest.mark.parametrize(("flag", "text", "message"), [
    # 1.5 is far likelier a slip (0.15, 1) than 1.5%, and "write 0.015" would make a gate that always holds.
    ("--gate", "groundedness=1.5", "--gate 'groundedness=1.5': threshold must be between 0 and 1"),
    ("--max-drop", "groundedness=2.5", "--max-drop 'groundedness=2.5': drop must be between 0 and 1"),
    ("--gate", "groundedness=85.5", "--gate 'groundedness=85.5': threshold must be between 0 and 1"),
    # Written with its %, or as a whole number from 2 to 100: read as a percentage.
    ("--gate", "groundedness=1.5%", "--gate 'groundedness=1.5%': threshold '1.5%' is not a number (write "
                                    "0.015 for 1.5%)"),
    ("--gate", "recall=90", "--gate 'recall=90': threshold must be between 0 and 1 (write 0.9 for 90%)"),
    ("--gate", "recall=100", "--gate 'recall=100': threshold must be between 0 and 1 (write 1 for 100%)"),
    ("--max-drop", "recall=5", "--max-drop 'recall=5': drop must be between 0 and 1 (write 0.05 for 5%)"),
    ("--gate", "recall=101", "--gate 'recall=101': threshold must be between 0 and 1"),
])
def test_only_a_value_written_like_a_percentage_is_read_as_one(flag: str, text: str, message: str) -> None:
    parse = parse_gate if flag == "--gate" else parse_drop
    with pytest.raises(InputError) as info:
        parse(text)
    assert str(info.value) == message


def test_unknown_metric_lists_every_valid_name() -> None:
    with pytest.raises(InputError) as info:
        parse_gate("faithfulness=0.9")
    message = str(info.value)
    assert "unknown metric 'faithfulness'" in message
    assert all(name in message for name in METRIC_NAMES)


@pytest.mark.parametrize(("text", "meant"), [
    ("Groundedness=0.85", "groundedness"),           # another case
    ("HALLUCINATION_RATE=0.1", "hallucination_rate"),
    ("groundness=0.85", "groundedness"),             # a typo
    ("hallucination=0.1", "hallucination_rate"),     # a word left out
    ("Groundedness>=0.85", "groundedness"),          # and with a comparison
    ("ground=0.85", "groundedness"),                 # the start of one name: too short for a typo's closeness
    ("Halluc=0.1", "hallucination_rate"),
    ("prec=0.2", "precision"),
    ("gro=0.8", "groundedness"),                     # three letters, the fewest a start is read from
])
def test_an_unknown_metric_suggests_the_name_likeliest_meant(text: str, meant: str) -> None:
    with pytest.raises(InputError) as info:
        parse_gate(text)
    name = re.split(r"[>=]", text)[0]
    assert str(info.value) == (f"--gate {text!r}: unknown metric {name!r} (did you mean {meant!r}?); valid "
                               f"names: {', '.join(METRIC_NAMES)}")


@pytest.mark.parametrize(("flag", "text", "name", "meant"), [
    # BEIR's and ranx's names, which had no suggestion (ndcg@10: 0.73 from 'ndcg', under the cut-off) or
    # one that gated another metric: told "did you mean 'recall'?", recall@20 was gated at the top 5.
    ("--gate", "ndcg@10=0.5", "ndcg@10", "'ndcg' with --k 10"),
    ("--gate", "MRR@10=0.5", "MRR@10", "'mrr' with --k 10"),
    ("--gate", "recall@20=0.8", "recall@20", "'recall' with --k 20"),
    ("--gate", "precision_at_3=0.4", "precision_at_3", "'precision' with --k 3"),
    ("--gate", "hit_rate@k=0.9", "hit_rate@k", "'hit_rate' with --k"),
    ("--gate", "mean_reciprocal_rank@10=0.5", "mean_reciprocal_rank@10", "'mrr' with --k 10"),
    ("--gate", "nDCG@10>=0.5", "nDCG@10", "'ndcg' with --k 10"),  # was "unknown metric 'nDCG@10>'"
    ("--max-drop", "ndcg@10=0.02", "ndcg@10", "'ndcg' with --k 10"),
])
def test_a_retrieval_metric_named_with_its_cut_off_is_told_the_cut_off_is_k(flag: str, text: str, name: str,
                                                                              meant: str) -> None:
    parse = parse_gate if flag == "--gate" else parse_drop
    with pytest.raises(InputError) as info:
        parse(text)
    assert str(info.value) == (f"{flag} {text!r}: unknown metric {name!r} (did you mean {meant}? retrieval "
                               f"metrics are read at the top --k, default 5); valid names: "
                               f"{', '.join(METRIC_NAMES)}")


def test_a_cut_off_on_a_metric_of_the_answer_is_no_k() -> None:
    # Groundedness is over every context the generator was given: no --k to point at.
    with pytest.raises(InputError) as info:
        parse_gate("groundedness@5=0.8")
    assert str(info.value) == ("--gate 'groundedness@5=0.8': unknown metric 'groundedness@5' (did you mean "
                               f"'groundedness'?); valid names: {', '.join(METRIC_NAMES)}")


@pytest.mark.parametrize("text", ["latency=0.9", "citation=0.5", "context_recall=0.5",
                                  "answer=0.5", "hi=0.5"])  # the start of two names; of one, but too short
def test_an_unknown_metric_near_no_name_or_several_suggests_none(text: str) -> None:
    with pytest.raises(InputError) as info:
        parse_gate(text)
    name = text.split("=")[0]
    assert str(info.value).startswith(f"--gate {text!r}: unknown metric {name!r}; valid names: ")


@pytest.mark.parametrize(("text", "meant"), [
    ("faithfulness=0.8", "groundedness"),            # ragas's and DeepEval's name
    ("Faithfulness=0.8", "groundedness"),
    ("faithful=0.8", "groundedness"),                # a near miss of it
    ("faithfulness_score=0.8", "groundedness"),
    ("response_relevancy=0.8", "answer_relevance"),  # ragas's current name
    ("mean_reciprocal_rank=0.5", "mrr"),
])
def test_another_tools_name_for_a_metric_is_told_ragmons(text: str, meant: str) -> None:
    with pytest.raises(InputError) as info:
        parse_gate(text)
    name = text.split("=")[0]
    assert str(info.value) == (f"--gate {text!r}: unknown metric {name!r} (ragmon calls it {meant!r}); valid "
                               f"names: {', '.join(METRIC_NAMES)}")


@pytest.mark.parametrize(("parse", "text", "message"), [
    (parse_gate, "groundedness=0.85,hallucination_rate=0.1",
     "--gate 'groundedness=0.85,hallucination_rate=0.1': give one NAME=VALUE per --gate (--gate "
     "groundedness=0.85 --gate hallucination_rate=0.1); a comma-separated list is for RAGMON_GATE"),
    (parse_drop, "groundedness=0.02, recall=0.05",
     "--max-drop 'groundedness=0.02, recall=0.05': give one NAME=DELTA per --max-drop (--max-drop "
     "groundedness=0.02 --max-drop recall=0.05); a comma-separated list is for RAGMON_MAX_DROP"),
])
def test_a_comma_list_on_the_command_line_is_told_to_repeat_the_flag(parse: Callable[[str], object],
                                                                     text: str, message: str) -> None:
    # Was "threshold '0.85,hallucination_rate=0.1' is not a number": only a variable's value is a list.
    with pytest.raises(InputError) as info:
        parse(text)
    assert str(info.value) == message


@pytest.mark.parametrize(("parse", "text", "message"), [
    (parse_gate, "groundedness=0.85 hallucination_rate=0.1",
     "--gate 'groundedness=0.85 hallucination_rate=0.1': give one NAME=VALUE per --gate (--gate "
     "groundedness=0.85 --gate hallucination_rate=0.1); a comma-separated list is for RAGMON_GATE"),
    (parse_drop, "groundedness=0.02; recall=0.05",
     "--max-drop 'groundedness=0.02; recall=0.05': give one NAME=DELTA per --max-drop (--max-drop "
     "groundedness=0.02 --max-drop recall=0.05); a comma-separated list is for RAGMON_MAX_DROP"),
    # Written with comparisons, a list was one gate, told to write "groundedness=0.85 hallucination_rate<0.1";
    # with `>=` in each, told to type `--gate groundedness>=0.85`, which a shell reads as a redirection.
    (parse_gate, "groundedness>=0.85 hallucination_rate<0.1",
     "--gate 'groundedness>=0.85 hallucination_rate<0.1': give one NAME=VALUE per --gate (--gate "
     "groundedness=0.85 --gate hallucination_rate=0.1); a comma-separated list is for RAGMON_GATE; without a "
     "comparison: groundedness is always a minimum; hallucination_rate is always a maximum"),
    (parse_gate, "groundedness>=85% hallucination_rate>=0.1",
     "--gate 'groundedness>=85% hallucination_rate>=0.1': give one NAME=VALUE per --gate (--gate "
     "groundedness=0.85 --gate hallucination_rate=0.1); a comma-separated list is for RAGMON_GATE; without a "
     "comparison: groundedness is always a minimum; hallucination_rate is always a maximum"),
    (parse_drop, "recall ≥ 0.05; groundedness=0.02",
     "--max-drop 'recall ≥ 0.05; groundedness=0.02': give one NAME=DELTA per --max-drop (--max-drop "
     "recall=0.05 --max-drop groundedness=0.02); a comma-separated list is for RAGMON_MAX_DROP; without a "
     "comparison: a --max-drop DELTA is always a maximum, the most recall may fall below the baseline's"),
    # A value the shell would expand is suggested quoted (it is then refused as no number, by name).
    (parse_gate, "groundedness=0.85 recall=$RECALL",
     "--gate 'groundedness=0.85 recall=$RECALL': give one NAME=VALUE per --gate (--gate groundedness=0.85 "
     "--gate 'recall=$RECALL'); a comma-separated list is for RAGMON_GATE"),
])
def test_a_list_separated_otherwise_is_told_to_repeat_the_flag(parse: Callable[[str], object], text: str,
                                                                message: str) -> None:
    # Was "threshold '0.85 hallucination_rate=0.1' is not a number".
    with pytest.raises(InputError) as info:
        parse(text)
    assert str(info.value) == message


def test_gates_followed_by_anything_else_are_no_list_and_nothing_of_them_is_dropped() -> None:
    # Read as a list, the two gates in it were suggested one per flag and the rest was dropped unsaid.
    with pytest.raises(InputError) as info:
        parse_gate("groundedness=0.85 hallucination_rate=0.1 junk")
    assert str(info.value) == ("--gate 'groundedness=0.85 hallucination_rate=0.1 junk': threshold "
                               "'0.85 hallucination_rate=0.1 junk' is not a number")


@pytest.mark.parametrize(("name", "value", "told"), [
    # As many tools' list variables are written. Was "threshold '0.85 hallucination_rate=0.1' is not a
    # number", naming the second gate as the first's value.
    ("RAGMON_GATE", "groundedness=0.85 hallucination_rate=0.1",
     "(RAGMON_GATE=groundedness=0.85,hallucination_rate=0.1)"),
    ("RAGMON_GATE", "groundedness=0.85;hallucination_rate=0.1",
     "(RAGMON_GATE=groundedness=0.85,hallucination_rate=0.1)"),
    # Commas and spaces: the suggestion was of the part after the comma alone, and copied, it lost the
    # groundedness gate (recall=0.05 and mrr=0.1 in the second).
    ("RAGMON_GATE", "groundedness=0.5, hallucination_rate=0.5 answer_relevance=0.1",
     "(RAGMON_GATE=groundedness=0.5,hallucination_rate=0.5,answer_relevance=0.1)"),
    ("RAGMON_MAX_DROP", "recall=0.05 groundedness=0.02, mrr=0.1",
     "(RAGMON_MAX_DROP=recall=0.05,groundedness=0.02,mrr=0.1)"),
    # A part that is no gate is kept, for its own error once the rest are separated.
    ("RAGMON_GATE", "groundedness=0.5 recall=0.5, precision",
     "(RAGMON_GATE=groundedness=0.5,recall=0.5,precision)"),
    ("RAGMON_GATE", "groundedness>=0.85 hallucination_rate<0.1",
     "(RAGMON_GATE=groundedness=0.85,hallucination_rate=0.1); without a comparison: groundedness is always "
     "a minimum; hallucination_rate is always a maximum"),
    # Quoted as set: the empty part the split drops was dropped from the quote too, which then quoted a
    # value nobody set ('groundedness=0.5,recall=0.5 mrr=0.1'); the suggestion has no empty gate.
    ("RAGMON_GATE", "groundedness=0.5,,recall=0.5 mrr=0.1",
     "(RAGMON_GATE=groundedness=0.5,recall=0.5,mrr=0.1)"),
])
def test_a_variable_listing_gates_otherwise_is_told_its_whole_value_with_commas(
        name: str, value: str, told: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    option = "--gate" if name == "RAGMON_GATE" else "--max-drop"
    assert replay_refuses(name, value, tmp_path, monkeypatch, capsys) == (
        f"ragmon replay: error: {name} {value!r} ({option}): separate them with commas {told}\n")


@pytest.mark.parametrize(("name", "value", "told"), [
    # Each was refused at its first part alone ("write NAME=VALUE, without a comparison
    # (groundedness=0.85)", "threshold '85%' is not a number"): fixed one part per run.
    ("RAGMON_GATE", "groundedness>=0.85,hallucination_rate<=0.1",
     "(--gate): write each gate as NAME=VALUE (RAGMON_GATE=groundedness=0.85,hallucination_rate=0.1); "
     "without a comparison: groundedness is always a minimum; hallucination_rate is always a maximum"),
    ("RAGMON_GATE", "groundedness=85%,hallucination_rate=10%",
     "(--gate): write each percentage as its share (RAGMON_GATE=groundedness=0.85,hallucination_rate=0.1)"),
    # Only the compared part gets a direction; the part that is no gate is kept for its own error.
    ("RAGMON_GATE", "recall=0.5,groundedness >= 85%,precision",
     "(--gate): write each gate as NAME=VALUE and each percentage as its share "
     "(RAGMON_GATE=recall=0.5,groundedness=0.85,precision); without a comparison: groundedness is always a "
     "minimum"),
    # A blank part (the split drops only an empty one) is no gate to keep in the value to write.
    ("RAGMON_GATE", "groundedness>=0.85, ,recall=0.5",
     "(--gate): write each gate as NAME=VALUE (RAGMON_GATE=groundedness=0.85,recall=0.5); without a "
     "comparison: groundedness is always a minimum"),
    ("RAGMON_MAX_DROP", "hallucination_rate<0.05,,groundedness=2%",
     "(--max-drop): write each gate as NAME=DELTA and each percentage as its share "
     "(RAGMON_MAX_DROP=hallucination_rate=0.05,groundedness=0.02); without a comparison: a --max-drop DELTA "
     "is always a maximum, the most hallucination_rate may rise above the baseline's"),
])
def test_a_comma_list_written_with_comparisons_or_percentages_is_told_its_whole_value(
        name: str, value: str, told: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_refuses(name, value, tmp_path, monkeypatch, capsys) == (
        f"ragmon replay: error: {name} {value!r} {told}\n")


@pytest.mark.parametrize("value", ["groundedness>=0.85", "groundedness>=0.85, "])
def test_a_variable_of_one_gate_with_a_comparison_is_told_as_that_gate(
        value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_refuses("RAGMON_GATE", value, tmp_path, monkeypatch, capsys) == (
        "ragmon replay: error: RAGMON_GATE 'groundedness>=0.85' (--gate): write NAME=VALUE, without a "
        "comparison (groundedness=0.85): groundedness is always a minimum\n")


def test_a_comma_list_of_plain_gates_is_taken_spaced_or_not() -> None:
    # 1 is no percentage (`as_share` reads 2 to 100 so): the list is not refused as written with one.
    assert parse_gates(["groundedness = 0.85 ", "recall=1"], Flag("--gate", "RAGMON_GATE")) == (
        Gate("groundedness", 0.85), Gate("recall", 1.0))


@pytest.mark.parametrize(("name", "value", "unknown"), [
    # Each was told to write its list as NAME=VALUE, the unknown name kept: "(RAGMON_GATE=hallucination=0.1,
    # groundedness=0.8); without a comparison: hallucination is always a minimum", a direction for a metric
    # ragmon does not have and a value refused as an unknown metric on the next run.
    ("RAGMON_GATE", "hallucination<=0.1,groundedness>=0.8",
     "unknown metric 'hallucination' (did you mean 'hallucination_rate'?)"),
    ("RAGMON_GATE", "groundedness=85%,recal=50%", "unknown metric 'recal' (did you mean 'recall'?)"),
    ("RAGMON_GATE", "faithfulness>=0.8 hallucination_rate<=0.1",
     "unknown metric 'faithfulness' (ragmon calls it 'groundedness')"),
    ("RAGMON_GATE", "ndcg@10>=0.5,groundedness>=0.8",
     "unknown metric 'ndcg@10' (did you mean 'ndcg' with --k 10? retrieval metrics are read at the top --k, "
     "default 5)"),
    ("RAGMON_MAX_DROP", "hallucinations<=0.05,groundedness>=0.05",
     "unknown metric 'hallucinations' (did you mean 'hallucination_rate'?)"),
])
def test_a_variable_listing_an_unknown_metric_is_refused_for_that_name_first(
        name: str, value: str, unknown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    option = "--gate" if name == "RAGMON_GATE" else "--max-drop"
    assert replay_refuses(name, value, tmp_path, monkeypatch, capsys) == (
        f"ragmon replay: error: {name} {value!r} ({option}): {unknown}; valid names: "
        f"{', '.join(METRIC_NAMES)}\n")


@pytest.mark.parametrize(("option", "value", "unknown"), [
    # Each was told to repeat the flag with the unknown name kept (--gate hallucination=0.1 ...).
    ("--gate", "hallucination<=0.1 groundedness>=0.8",
     "unknown metric 'hallucination' (did you mean 'hallucination_rate'?)"),
    ("--gate", "groundedness=0.8;recal=0.5", "unknown metric 'recal' (did you mean 'recall'?)"),
    ("--gate", "faithfulness>=0.8 hallucination_rate<=0.1",
     "unknown metric 'faithfulness' (ragmon calls it 'groundedness')"),
    ("--gate", "ndcg@10>=0.5,groundedness>=0.8",
     "unknown metric 'ndcg@10' (did you mean 'ndcg' with --k 10? retrieval metrics are read at the top --k, "
     "default 5)"),
    ("--max-drop", "hallucinations<=0.05 groundedness>=0.05",
     "unknown metric 'hallucinations' (did you mean 'hallucination_rate'?)"),
])
def test_a_listed_flag_naming_an_unknown_metric_is_refused_for_that_name_first(
        option: str, value: str, unknown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    without_ragmon_variables(monkeypatch)
    assert replay_error([option, value], tmp_path, capsys) == (
        f"ragmon replay: error: {option} {value!r}: {unknown}; valid names: {', '.join(METRIC_NAMES)}\n")


FAITHFULNESS = "'faithfulness' (ragmon calls it 'groundedness')"
HALLUCINATION = "'hallucination' (did you mean 'hallucination_rate'?)"


@pytest.mark.parametrize(("given", "value", "unknown"), [
    # Each was refused for its first unknown name alone, and for the next on the run after it was fixed.
    ("RAGMON_GATE", "faithfulness>=0.8,hallucination<=0.1", f"{FAITHFULNESS}, {HALLUCINATION}"),
    ("--gate", "faithfulness>=0.8 hallucination<=0.1", f"{FAITHFULNESS}, {HALLUCINATION}"),
    ("RAGMON_GATE", "hallucination<=0.1,faithfulness>=0.8,hallucination<=0.2",
     f"{HALLUCINATION}, {FAITHFULNESS}"),
    ("RAGMON_GATE", "groundedness=0.8 ndcg@10=0.5 recal=0.5",
     "'ndcg@10' (did you mean 'ndcg' with --k 10? retrieval metrics are read at the top --k, default 5), "
     "'recal' (did you mean 'recall'?)"),
    ("--max-drop", "faithfulness<=0.05;hallucinations<=0.05",
     f"{FAITHFULNESS}, 'hallucinations' (did you mean 'hallucination_rate'?)"),
    ("RAGMON_MAX_DROP", "faithfulness<=0.05,groundedness>=0.05,hallucinations<=0.05",
     f"{FAITHFULNESS}, 'hallucinations' (did you mean 'hallucination_rate'?)"),
])
def test_a_list_naming_several_unknown_metrics_is_refused_for_all_of_them_at_once(
        given: str, value: str, unknown: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    if given.startswith("--"):
        without_ragmon_variables(monkeypatch)
        err = replay_error([given, value], tmp_path, capsys)
        quoted = f"{given} {value!r}"
    else:
        err = replay_refuses(given, value, tmp_path, monkeypatch, capsys)
        quoted = f"{given} {value!r} ({'--gate' if given == 'RAGMON_GATE' else '--max-drop'})"
    assert err == (f"ragmon replay: error: {quoted}: unknown metrics {unknown}; valid names: "
                   f"{', '.join(METRIC_NAMES)}\n")


VALID = f"valid names: {', '.join(METRIC_NAMES)}"


@pytest.mark.parametrize(("variables", "args", "refused"), [
    # Each gate on its own, as documented: each was refused for its first unknown name alone, and for the
    # next on the run after it was fixed.
    ({"RAGMON_GATE": "faithfulness=0.8,hallucination=0.1"}, [],
     f"RAGMON_GATE 'faithfulness=0.8,hallucination=0.1' (--gate): unknown metrics {FAITHFULNESS}, "
     f"{HALLUCINATION}"),
    ({"RAGMON_MAX_DROP": "recal=0.1,,ndcg@10=0.05"}, [],
     "RAGMON_MAX_DROP 'recal=0.1,,ndcg@10=0.05' (--max-drop): unknown metrics 'recal' (did you mean "
     "'recall'?), 'ndcg@10' (did you mean 'ndcg' with --k 10? retrieval metrics are read at the top --k, "
     "default 5)"),
    ({}, ["--gate", "faithfulness=0.8", "--gate", "groundedness=0.5", "--gate", "hallucination=0.1"],
     f"--gate 'faithfulness=0.8' --gate 'hallucination=0.1': unknown metrics {FAITHFULNESS}, "
     f"{HALLUCINATION}"),
    ({}, ["--gate", "hallucination=0.1", "--gate", "faithfulness=0.8", "--gate", "hallucination=0.2"],
     f"--gate 'hallucination=0.1' --gate 'faithfulness=0.8': unknown metrics {HALLUCINATION}, "
     f"{FAITHFULNESS}"),
    ({}, ["--max-drop", "faithfulness=0.05", "--max-drop", "hallucinations>=0.05"],
     f"--max-drop 'faithfulness=0.05' --max-drop 'hallucinations>=0.05': unknown metrics {FAITHFULNESS}, "
     "'hallucinations' (did you mean 'hallucination_rate'?)"),
    # One unknown name, however often given: the first gate naming it, quoted alone, as before.
    ({"RAGMON_GATE": "groundedness=0.8,hallucination=0.1,hallucination=0.2"}, [],
     f"RAGMON_GATE 'hallucination=0.1' (--gate): unknown metric {HALLUCINATION}"),
    ({}, ["--gate", "groundedness=0.8", "--gate", "faithfulness=0.8", "--gate", "faithfulness=0.9"],
     f"--gate 'faithfulness=0.8': unknown metric {FAITHFULNESS}"),
])
def test_gates_given_one_each_are_refused_for_all_their_unknown_metrics_in_one_message(
        variables: dict[str, str], args: list[str], refused: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    without_ragmon_variables(monkeypatch)
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert replay_error(args, tmp_path, capsys) == f"ragmon replay: error: {refused}; {VALID}\n"


def replay_refuses(name: str, value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> str:
    """What `ragmon replay` prints when it refuses variable `name` set to `value`, on a golden set of one."""
    without_ragmon_variables(monkeypatch)
    monkeypatch.setenv(name, value)
    return replay_error([], tmp_path, capsys)


def replay_error(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What `ragmon replay` with `args` prints when it refuses to run, on a golden set of one."""
    data = tmp_path / "golden.jsonl"
    data.write_text(json.dumps({"id": "e1", "question": "When does the store open?",
                                "contexts": [{"id": "store", "text": STORE}], "answer": SUPPORTED[0]}) + "\n",
                    encoding="utf-8")
    assert main(["replay", str(data), "--quiet", *args]) == EXIT_ERROR
    return capsys.readouterr().err


@pytest.mark.parametrize(("parse", "text", "message"), [
    # `ragmon replay g.jsonl --gate groundedness>=0.85` unquoted: the shell sent the output to a file
    # "=0.85" and passed "groundedness" alone.
    (parse_gate, "groundedness",
     "--gate expects NAME=VALUE, got 'groundedness' (if you typed groundedness>=VALUE unquoted, the shell "
     "passed groundedness alone and sent the output to a file named '=VALUE'): write groundedness=VALUE, as "
     "groundedness is always a minimum; quote any argument holding > or <"),
    (parse_drop, "hallucination_rate",
     "--max-drop expects NAME=VALUE, got 'hallucination_rate' (if you typed hallucination_rate>=DELTA "
     "unquoted, the shell passed hallucination_rate alone and sent the output to a file named '=DELTA'): "
     "write hallucination_rate=DELTA, as a --max-drop DELTA is always a maximum, the most hallucination_rate "
     "may rise above the baseline's; quote any argument holding > or <"),
    (parse_gate, "nonsense", "--gate expects NAME=VALUE, got 'nonsense'"),   # no metric: no shell to blame
])
def test_a_metric_name_alone_says_how_a_shell_took_an_unquoted_comparison(parse: Callable[[str], object],
                                                                          text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse(text)
    assert str(info.value) == message


def test_values_from_the_environment_are_named_by_their_variable() -> None:
    gate, drop = Flag("--gate", "RAGMON_GATE"), Flag("--max-drop", "RAGMON_MAX_DROP")
    with pytest.raises(InputError) as info:
        parse_gates(["groundness=0.8"], gate)
    assert str(info.value) == ("RAGMON_GATE 'groundness=0.8' (--gate): unknown metric 'groundness' (did you "
                               f"mean 'groundedness'?); valid names: {', '.join(METRIC_NAMES)}")
    with pytest.raises(InputError) as info:
        parse_drops(["recall=5"], drop)
    assert str(info.value) == ("RAGMON_MAX_DROP 'recall=5' (--max-drop): drop must be between 0 and 1 (write "
                               "0.05 for 5%)")
    with pytest.raises(InputError) as info:  # no shell read a variable: nothing to say of quoting
        parse_gates(["groundedness"], gate)
    assert str(info.value) == "RAGMON_GATE (--gate) expects NAME=VALUE, got 'groundedness'"
    with pytest.raises(InputError) as info:
        parse_gates(["recall=0.5", "recall=0.6"], gate)
    assert str(info.value) == "RAGMON_GATE recall (--gate) is given 2 times; give each metric once"


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


def test_a_bound_gate_on_a_report_without_intervals_fails() -> None:
    # EvalConfig(bootstrap_samples=0) asks for no intervals: a gate on a bound has nothing to compare and
    # must not fall back on the mean (0.9, which would hold), at the Report's level or at another.
    report = report_with({"groundedness": Aggregate(0.9, 3, None)}, {"groundedness": [1.0, 1.0, 0.7]})
    report = replace(report, config=EvalConfig(bootstrap_samples=0))
    for confidence in (0.95, 0.9):
        (result,) = decide(report, parse_gates(["groundedness=0.5"]), confidence=confidence)
        assert (result.passed, result.value) == (False, None)
        assert result.reason == f"no {confidence * 100:g}% interval from 3 observations"
        assert exit_code((result,)) == EXIT_BREACHED


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


def test_a_few_equal_values_read_at_another_level_get_the_binomial_bound_too() -> None:
    # Five grounded answers, gated at 90%: the lower end of a two-sided 90% interval leaves 5% below it, and
    # five successes in five trials have probability p^5, which is 0.05 at p = 0.05 ** (1 / 5) = 0.5493.
    values: list[float | None] = [1.0] * 5
    report = report_with({"groundedness": Aggregate(1.0, 5, (0.0, 1.0))}, {"groundedness": values})
    (held,) = decide(report, parse_gates(["groundedness=0.54"]), confidence=0.90)
    (breached,) = decide(report, parse_gates(["groundedness=0.99"]), confidence=0.90)
    assert held.passed and held.value == pytest.approx(0.05 ** (1 / 5), abs=1e-9)
    assert not breached.passed and breached.reason.startswith("lower 90% bound 0.549")


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


def test_a_gate_held_in_no_run_fails_whatever_the_pass_rate() -> None:
    # --min-pass-rate 0 of 3 runs needs ceil(0 * 3) = 0 of them: a gate breached in all three, or on a
    # metric none of them observed, held ("held in 0 of 3 runs (needs 0)"). It needs one at least.
    undefined = (GateResult("groundedness", ">=", 0.85, None, False, "undefined: 0 observations"),)
    (never,) = combine([undefined] * 3, min_pass_rate=0.0)
    assert (never.passed, never.value) == (False, None)
    assert never.reason.startswith("held in 0 of 3 runs (needs 1): undefined: 0 observations;")
    breached = (GateResult("groundedness", ">=", 0.85, 0.5, False, "0.5 < 0.85"),)
    (low,) = combine([breached] * 2, min_pass_rate=0.0)
    assert (low.passed, low.value) == (False, 0.5)
    held = (GateResult("groundedness", ">=", 0.85, 0.9, True, "0.9 >= 0.85"),)
    (once,) = combine([breached, held, breached], min_pass_rate=0.0)
    assert once.passed and once.reason.startswith("held in 1 of 3 runs (needs 1)")


def test_close_values_never_print_as_equal() -> None:
    assert fmt_pair(0.84999, 0.85) == ("0.84999", "0.85")
    assert fmt_pair(0.7142857, 0.85) == ("0.7143", "0.85")
    # One float apart, the two differ only at the 17th digit.
    assert fmt_pair(0.1, 0.10000000000000002) == ("0.10000000000000001", "0.10000000000000002")


def test_a_mean_at_a_threshold_of_many_digits_is_shown_as_the_label_shows_the_threshold() -> None:
    # 5 of 12 and 7 of 12 examples at 1, the rest at 0: means 5/12 and 7/12, which at the 12 decimals a
    # gate compares at are 0.416666666667 and 0.583333333333, the thresholds as written: both hold. Four
    # significant digits would say "0.4167 >= 0.4167" beside a label naming 0.416666666667.
    fives: list[float | None] = [1.0] * 5 + [0.0] * 7
    sevens: list[float | None] = [1.0] * 7 + [0.0] * 5
    report = report_with({"groundedness": aggregate(fives), "hallucination_rate": aggregate(sevens)})
    held, capped = decide(report, parse_gates(["groundedness=0.416666666667",
                                               "hallucination_rate=0.583333333333"]))
    assert (held.passed, held.label, held.reason) == (
        True, "groundedness >= 0.416666666667", "0.416666666667 >= 0.416666666667")
    assert (capped.passed, capped.label, capped.reason) == (
        True, "hallucination_rate <= 0.583333333333", "0.583333333333 <= 0.583333333333")


def test_labels_name_thresholds_in_full() -> None:
    # `:g` keeps six significant digits: 0.4166666667 was "0.416667", and so was 0.41666667, so two gates
    # were one JUnit test; a drop gate's allowance likewise. Short ones read as before: 0.85, 1, 0.
    report = report_with({"groundedness": Aggregate(0.5, 2)})
    labels = [decide(report, parse_gates([f"groundedness={t}"]))[0].label
              for t in ("0.4166666667", "0.41666667", "0.85", "1", "0")]
    assert labels == ["groundedness >= 0.4166666667", "groundedness >= 0.41666667", "groundedness >= 0.85",
                      "groundedness >= 1", "groundedness >= 0"]
    comparison = comparison_of({"groundedness": [1.0]}, {"groundedness": [1.0]})
    (drop,) = drops(comparison, "groundedness=0.0123456789")
    assert drop.label == "groundedness drop <= 0.0123456789 vs baseline"


def test_a_mean_of_exactly_the_threshold_holds_whatever_the_float_sum() -> None:
    # Three examples at groundedness 0, 0 and 0.6 (3 of 5 claims) average to 0.2, which in floats is
    # 0.19999999999999998: it breached `groundedness=0.2` by rounding alone ("0.19999999999999998 <
    # 0.20000000000000001"), where a minimum holds at equality. Likewise 0.4 and a maximum of 0.8.
    values: list[float | None] = [0.0, 0.0, 0.6]
    halluc: list[float | None] = [1.0, 1.0, 0.4]
    report = report_with({"groundedness": aggregate(values), "hallucination_rate": aggregate(halluc)},
                         {"groundedness": values, "hallucination_rate": halluc})
    grounded, capped = decide(report, parse_gates(["groundedness=0.2", "hallucination_rate=0.8"]))
    assert (grounded.passed, grounded.value, grounded.reason) == (True, 0.2, "0.2 >= 0.2")
    assert (capped.passed, capped.value, capped.reason) == (True, 0.8, "0.8 <= 0.8")
    assert exit_code((grounded, capped)) == EXIT_OK
    (above,) = decide(report, parse_gates(["groundedness=0.2001"]))  # a real shortfall still breaches
    assert (above.passed, above.reason) == (False, "0.2 < 0.2001")


def test_a_threshold_with_more_than_12_decimals_is_rounded_as_the_mean_is() -> None:
    # The mean was rounded to 12 decimals, the threshold not: a mean of 0.2000000000000004, exactly at
    # `groundedness=0.2000000000000004`, was compared as 0.2 and breached it ("0.2 < 0.2000000000000004");
    # likewise a maximum of 0.7999999999999996 and a mean at it.
    report = report_with({"groundedness": aggregate([0.2000000000000004]),
                          "hallucination_rate": aggregate([0.7999999999999996])},
                         {"groundedness": [0.2000000000000004], "hallucination_rate": [0.7999999999999996]})
    grounded, capped = decide(report, parse_gates(["groundedness=0.2000000000000004",
                                                   "hallucination_rate=0.7999999999999996"]))
    assert (grounded.passed, grounded.threshold, grounded.reason) == (True, 0.2, "0.2 >= 0.2")
    assert (capped.passed, capped.threshold, capped.reason) == (True, 0.8, "0.8 <= 0.8")
    assert exit_code((grounded, capped)) == EXIT_OK
    (short,) = decide(report, parse_gates(["groundedness=0.200000000001"]))  # 12 decimals: still a breach
    assert (short.passed, short.reason) == (False, "0.2 < 0.200000000001")


def test_a_drop_limit_with_more_than_12_decimals_is_rounded_as_the_change_is() -> None:
    # 0.5 -> 0.4800000000000004: a drop of 0.0199999999999996, rounded to 0.02, breached a DELTA written as
    # 0.0199999999999996 ("dropped 0.02 > 0.0199999999999996").
    comparison = comparison_of({"groundedness": [0.5]}, {"groundedness": [0.4800000000000004]})
    (result,) = drops(comparison, "groundedness=0.0199999999999996")
    assert (result.passed, result.value, result.threshold, result.max_drop) == (True, -0.02, -0.02, 0.02)
    assert result.reason == ("dropped 0.02 <= 0.02 against the baseline: 0.5 -> 0.48 on 1 example measured "
                             "in both runs")


def test_minus_zero_threshold_reads_as_zero() -> None:
    # float("-0") is -0.0, which every report would print as "-0" (a test named "recall >= -0").
    gate = parse_gate("recall=-0")
    assert str(gate.threshold) == "0.0"
    (result,) = decide(report_with({"recall": Aggregate(0.0, 1, (0.0, 0.0))}), [gate])
    assert result.passed and result.reason == "0 >= 0"


# --- drop gates: --max-drop against a baseline ------------------------------------------------------


def comparison_of(before: dict[str, list[float | None]], after: dict[str, list[float | None]]) -> Comparison:
    """Example e<i> has before[metric][i] in the baseline and after[metric][i] in this run."""
    count = max(len(col) for col in before.values())
    examples = {f"e{i}": BaselineExample({name: col[i] for name, col in before.items()}, frozenset())
                for i in range(count)}
    return compare(Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, examples), report_with({}, after))


def drops(comparison: Comparison, *texts: str, confidence: float | None = None,
          config: EvalConfig | None = None) -> tuple[GateResult, ...]:
    return decide_drops(comparison, parse_drops(texts), confidence, config or EvalConfig())


def test_parse_drops_names_its_flag() -> None:
    assert parse_drops(["groundedness=0.02", " hallucination_rate = 0.03"]) == (
        DropGate("groundedness", 0.02), DropGate("hallucination_rate", 0.03))
    with pytest.raises(InputError, match=r"^--max-drop 'groundedness=lots': drop 'lots' is not a number$"):
        parse_drops(["groundedness=lots"])
    with pytest.raises(InputError,
                       match=r"^--max-drop 'recall=2': drop must be between 0 and 1 \(write 0\.02 for 2%\)$"):
        parse_drops(["recall=2"])
    with pytest.raises(InputError, match=r"^--max-drop 'latency=0\.1': unknown metric 'latency'; valid"):
        parse_drops(["latency=0.1"])
    with pytest.raises(InputError, match=r"^--max-drop groundedness is given 2 times"):
        parse_drops(["groundedness=0.1", "groundedness=0.2"])


def test_a_drop_beyond_the_allowed_one_breaches_and_a_smaller_one_holds() -> None:
    # Groundedness 1, 1, 0.5, 1 in the baseline (mean 0.875), 1, 0.5, 0.5, 1 now (mean 0.75): -0.125.
    # Hallucination the other way round: 0.125 -> 0.25, a rise of 0.125.
    comparison = comparison_of({"groundedness": [1.0, 1.0, 0.5, 1.0], "hallucination_rate": [0, 0, 0.5, 0]},
                               {"groundedness": [1.0, 0.5, 0.5, 1.0], "hallucination_rate": [0, 0.5, 0.5, 0]})
    (breached,) = drops(comparison, "groundedness=0.1")
    held, rose = drops(comparison, "groundedness=0.2", "hallucination_rate=0.1")
    why = "dropped 0.125 > 0.1 against the baseline: 0.875 -> 0.75 on 4 examples measured in both runs"
    assert breached == GateResult("groundedness", ">=", -0.1, -0.125, False, why, 0.1, 0.875)
    assert held.passed and held.reason.startswith("dropped 0.125 <= 0.2 against the baseline")
    assert (rose.op, rose.threshold, rose.value, rose.passed) == ("<=", 0.1, 0.125, False)
    assert rose.reason == ("rose 0.125 > 0.1 against the baseline: 0.125 -> 0.25 on 4 examples measured in "
                           "both runs")
    assert (breached.label, rose.label) == ("groundedness drop <= 0.1 vs baseline",
                                           "hallucination_rate rise <= 0.1 vs baseline")
    assert exit_code((held,)) == EXIT_OK and exit_code((held, breached)) == EXIT_BREACHED


def test_improvement_and_no_change_hold_even_at_zero() -> None:
    comparison = comparison_of({"groundedness": [0.5, 1.0], "hallucination_rate": [0.5, 0.0]},
                               {"groundedness": [1.0, 1.0], "hallucination_rate": [0.0, 0.0]})
    up, down = drops(comparison, "groundedness=0", "hallucination_rate=0")
    assert up.passed and up.reason == ("rose 0.25 against the baseline: 0.75 -> 1 on 2 examples measured in "
                                       "both runs")
    assert down.passed and down.reason.startswith("fell 0.25 against the baseline")
    # -0.0 for a drop of 0 allowed (a minimum's threshold is -max_drop) would be "-0.0" in the JSON report.
    assert (str(up.threshold), str(down.threshold)) == ("0.0", "0.0")
    (same,) = drops(comparison_of({"recall": [0.5]}, {"recall": [0.5]}), "recall=0")
    assert same.passed and same.value == 0.0 and same.reason.startswith("unchanged against the baseline")


def test_a_drop_of_exactly_the_allowed_amount_holds() -> None:
    # 50 examples at 1.0, then one of them at 0: 49 / 50 = 0.98, a drop of 0.02, which in floats is
    # 1.0 - 0.98 = 0.020000000000000018 and would breach 0.02 by rounding alone.
    comparison = comparison_of({"groundedness": [1.0] * 50}, {"groundedness": [1.0] * 49 + [0.0]})
    (result,) = drops(comparison, "groundedness=0.02")
    assert result.passed and result.value == -0.02
    assert result.reason.startswith("dropped 0.02 <= 0.02 against the baseline")


def test_the_reason_counts_the_examples_measured_in_both_runs_not_those_shared() -> None:
    # e1 has no groundedness in either run (an abstention, say): 3 examples in both runs, 2 measured in
    # both, 1 and 1 then and now on them. One example shared and measured: "1 example", not "1 examples".
    comparison = comparison_of({"groundedness": [1.0, None, 1.0]}, {"groundedness": [1.0, None, 1.0]})
    (result,) = drops(comparison, "groundedness=0")
    assert comparison.shared == 3
    assert result.reason == "unchanged against the baseline: 1 -> 1 on 2 examples measured in both runs"
    (one,) = drops(comparison_of({"groundedness": [1.0]}, {"groundedness": [0.5]}), "groundedness=0.5")
    assert one.reason == ("dropped 0.5 <= 0.5 against the baseline: 1 -> 0.5 on 1 example measured in both "
                          "runs")


@pytest.mark.parametrize(("before", "after", "reason"), [
    ([None, None], [1.0, None], "undefined in the baseline: 0 observations"),
    ([1.0, None], [None, None], "undefined in this run: 0 observations"),
    ([None, None], [None, None], "undefined in both runs: 0 observations"),
])
def test_undefined_is_no_zero_and_the_reason_names_the_run_that_lacked_it(
        before: list[float | None], after: list[float | None], reason: str) -> None:
    (result,) = drops(comparison_of({"citation_accuracy": before}, {"citation_accuracy": after}),
                      "citation_accuracy=1")  # even the loosest drop gate fails
    assert (result.passed, result.value, result.reason) == (False, None, reason)


def test_an_example_one_run_alone_measured_is_counted_not_compared() -> None:
    # e0 abstained in the baseline (no groundedness) and now makes up its one sentence (0); e1-e3 are
    # grounded in both. Paired over the three both measured: 1 -> 1. Set against the other examples' mean
    # (3/3 then, 3/4 now) e0 would move the change by how easy its question is: a made-up answer scoring
    # above the others' mean read as a rise. So it is said, and not compared.
    grounded: list[float | None] = [0.0, 1.0, 1.0, 1.0]
    comparison = comparison_of({"groundedness": [None, 1.0, 1.0, 1.0], "hallucination_rate": [None, 0, 0, 0]},
                               {"groundedness": grounded, "hallucination_rate": [1 - v for v in grounded]})
    drop, rise = drops(comparison, "groundedness=0.02", "hallucination_rate=0.02")
    counted = "on 3 examples measured in both runs (1 more in this run only, not compared)"
    assert (drop.passed, drop.value, drop.reason) == (
        True, 0.0, f"unchanged against the baseline: 1 -> 1 {counted}")
    assert (rise.passed, rise.value, rise.reason) == (
        True, 0.0, f"unchanged against the baseline: 0 -> 0 {counted}")
    # The reverse: e0 hallucinated in the baseline and abstains now.
    back = comparison_of({"groundedness": grounded}, {"groundedness": [None, 1.0, 1.0, 1.0]})
    (same,) = drops(back, "groundedness=0")
    assert (same.passed, same.reason) == (True, "unchanged against the baseline: 1 -> 1 on 3 examples "
                                                "measured in both runs (1 more in the baseline only, not "
                                                "compared)")


def test_an_abstention_in_the_baseline_is_one_of_the_paired_changes_the_bound_resamples() -> None:
    # e0 abstained in the baseline (recorded so) and now scores 0; e1-e3 are at 1 in both runs. Paired
    # changes -1, 0, 0, 0 (mean -0.25). A resample of the four holding k copies of e0's changes by -k/4, k ~
    # Binomial(4, 1/4): P(k >= 3) = 13/256 = 5.1% and P(k = 4) = 1/256 = 0.4%, so the 2.5% quantile of
    # 1,000 resamples is at k = 3: -0.75, beyond a 0.5 allowance the mean holds.
    grounded = BaselineExample({"groundedness": 1.0}, frozenset(), None, False)
    before = {"e0": BaselineExample({"groundedness": None}, frozenset(), None, True),
              **{f"e{i}": grounded for i in (1, 2, 3)}}
    comparison = compare(Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, before),
                         report_with({}, {"groundedness": [0.0, 1.0, 1.0, 1.0]}))
    counted = "1 example that abstained in the baseline (counted as groundedness 1 there)"
    (on_mean,) = drops(comparison, "groundedness=0.5")
    assert (on_mean.passed, on_mean.value) == (True, -0.25)
    (on_bound,) = drops(comparison, "groundedness=0.5", confidence=0.95)
    assert (on_bound.passed, on_bound.value, on_bound.reason) == (
        False, -0.75, "dropped 0.75 > 0.5 against the baseline at the lower 95% bound of the change: means 1 "
                      f"-> 0.75 on 3 examples measured in both runs and {counted}")
    # e0 alone: nothing measured in both runs, the abstention still compared (here with no resampling).
    alone = compare(Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {"e0": before["e0"]}),
                    report_with({}, {"groundedness": [0.0]}))
    (none,) = drops(alone, "groundedness=0.5", confidence=0.95, config=EvalConfig(bootstrap_samples=0))
    assert (none.passed, none.reason) == (False, f"no 95% interval of the change from {counted}")


def test_a_metric_the_shared_examples_lack_in_one_run_names_that_run() -> None:
    # e0 is in both runs, measured in the baseline only; e1 only in this run, measured there. This run has
    # observations, but none on an example the baseline has: nothing to compare, and no pass.
    baseline = Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {
        "e0": BaselineExample({"groundedness": 1.0}, frozenset())})
    now = Report({"name": "lexical"}, 5, tuple(
        ExampleResult(Example(id_, "q"), "lexical", {"groundedness": value}, ())
        for id_, value in (("e0", None), ("e1", 1.0))), {})
    (result,) = drops(compare(baseline, now), "groundedness=1")
    assert (result.passed, result.value) == (False, None)
    assert result.reason == "no example measured in both runs (1 example in both)"


def test_confidence_bounds_the_paired_change() -> None:
    # 15 examples: 14 at 1 in both runs, and one at 1 in the baseline and 2/3 now: a mean change of
    # -(1/3) / 15 = -0.0222. The bootstrap resamples the per-example changes: a resample holding k copies
    # of the regressed one changes by -k/45, k ~ Binomial(15, 1/15). P(k >= 3) = 7.5%, P(k >= 4) = 1.6%
    # and P(k >= 5) = 0.2%, so the 2.5% quantile of 1,000 resamples is at k = 3 or, by the luck of the
    # draw, 4: -3/45 = -0.0667 or -4/45 = -0.0889. A 0.05 allowance holds on the mean, not on the bound.
    comparison = comparison_of({"groundedness": [1.0] * 15}, {"groundedness": [1.0] * 14 + [2 / 3]})
    (on_mean,) = drops(comparison, "groundedness=0.05")
    (on_bound,) = drops(comparison, "groundedness=0.05", confidence=0.95)
    assert on_mean.passed and on_mean.value == pytest.approx(-1 / 45)
    assert not on_bound.passed and on_bound.value is not None
    assert min(abs(on_bound.value + 3 / 45), abs(on_bound.value + 4 / 45)) < 1e-6
    assert re.fullmatch(r"dropped 0\.0(6667|8889) > 0\.05 against the baseline at the lower 95% bound of the "
                        r"change: means 1 -> 0\.9778 on 15 examples measured in both runs", on_bound.reason)


def test_confidence_passes_an_unchanged_run_whatever_its_spread() -> None:
    # Half the examples at 0 and half at 1 in both runs: each run's own 95% interval of the mean is about
    # 0.5 +- 1.96 * sqrt(0.25 / 20) = [0.28, 0.72], so "this run's lower bound against the baseline's mean"
    # would fail any allowance under 0.2. The paired changes are all 0: the interval is [0, 0].
    column: list[float | None] = [0.0, 1.0] * 10
    (result,) = drops(comparison_of({"groundedness": column}, {"groundedness": column}), "groundedness=0",
                      confidence=0.95)
    assert result.passed and result.value == 0.0
    # A library user's EvalConfig(bootstrap_samples=0) asks for no intervals: nothing to bound, no pass.
    (none,) = drops(comparison_of({"groundedness": [1.0, 1.0]}, {"groundedness": [1.0, 0.5]}),
                    "groundedness=0.5", confidence=0.95, config=EvalConfig(bootstrap_samples=0))
    assert (none.passed, none.reason) == (False, "no 95% interval of the change from 2 examples measured in "
                                                 "both runs")


def test_repeated_runs_keep_what_makes_a_drop_gate() -> None:
    def run(passed: bool, value: float) -> tuple[GateResult, ...]:
        return (GateResult("groundedness", ">=", -0.02, value, passed, "x", 0.02, 0.9),)

    (held,) = combine([run(True, -0.01), run(False, -0.03)], min_pass_rate=0.5)
    assert (held.passed, held.max_drop, held.baseline, held.label) == (
        True, 0.02, 0.9, "groundedness drop <= 0.02 vs baseline")
    assert held.value == pytest.approx(-0.02)


def test_a_bound_exactly_at_the_threshold_holds_it() -> None:
    # 38 answers at 1/3, one at 0, one at 1: the lower 95% bound of the Report's own resampling (seed 0,
    # 1,000 rounds) is 37/120 exactly (tests/metrics/test_aggregate.py works it out in fractions). Like a
    # mean, a bound equal to its threshold holds it, and one a hair below does not.
    values: list[float | None] = [1 / 3] * 38 + [0.0, 1.0]
    report = report_with({"groundedness": aggregate(values, samples=1000, seed=0)}, {"groundedness": values})
    (at,) = decide(report, parse_gates([f"groundedness={37 / 120!r}"]), confidence=0.95)
    assert at.passed, at.reason
    (above,) = decide(report, parse_gates(["groundedness=0.308333333334"]), confidence=0.95)
    assert not above.passed


@pytest.mark.parametrize(("text", "message"), [
    # float() read "0_5" as 5 (digits grouped as in Python source): refused as out of range, for 0.5 meant.
    ("groundedness=0_5", "--gate 'groundedness=0_5': threshold '0_5' is not a number"),
    # and Arabic-Indic digits as 0.5, taken without a word.
    ("groundedness=٠.٥", "--gate 'groundedness=٠.٥': threshold '٠.٥' is not a number (write it with the "
                         "digits 0-9)"),
    ("groundedness=nan", "--gate 'groundedness=nan': threshold 'nan' is not a number"),
])
def test_a_threshold_in_digits_other_than_0_to_9_is_not_a_number(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_gate(text)
    assert str(info.value) == message


@pytest.mark.parametrize(("text", "message"), [
    ("groundedness=0.85\u00a0", "--gate 'groundedness=0.85\\xa0': threshold '0.85\\xa0' is not a number"),
    ("groundedness=\u20030.85", "--gate 'groundedness=\\u20030.85': threshold '\\u20030.85' is not a number"),
], ids=["no-break-space", "em-space"])
def test_a_threshold_refused_for_a_space_that_is_not_ascii_quotes_that_space(text: str, message: str) -> None:
    # A value pasted from a wiki or a chat keeps its no-break space. The message quoted the value stripped
    # of it: "threshold '0.85' is not a number", which reads as false. The space the number rule does not
    # take (ASCII white space around the number is taken) is quoted with it.
    with pytest.raises(InputError) as info:
        parse_gate(text)
    assert str(info.value) == message


def test_one_example_in_both_runs_is_one_example() -> None:
    # e0 is in both runs, measured in neither; e1 only in the baseline, e2 only in this run.
    baseline = Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {
        "e0": BaselineExample({"citation_accuracy": None}, frozenset()),
        "e1": BaselineExample({"citation_accuracy": 1.0}, frozenset())})
    now = Report({"name": "lexical"}, 5, tuple(
        ExampleResult(Example(id_, "q"), "lexical", {"citation_accuracy": value}, ())
        for id_, value in (("e0", None), ("e2", 1.0))), {})
    (result,) = drops(compare(baseline, now), "citation_accuracy=1")
    assert result.reason == "no example measured in both runs (1 example in both)"


# --- groundedness and hallucination_rate, one bar two ways ------------------------------------------

SUPPORTED = ("The store opens at nine in the morning.", "Parking is free for customers.",
             "Returns are accepted within thirty days.")
STORE = " ".join(SUPPORTED)
UNSUPPORTED = ("The moon is made of green cheese.", "Penguins pilot submarines professionally.",
               "Volcanoes sing opera loudly.")


def beta_cdf(x: float, a: float, b: float, steps: int = 200_000) -> float:
    """I_x(a, b) by Simpson's rule on the density, for a and b above 1: no continued fraction, as ragmon's."""
    def density(t: float) -> float:
        return math.exp((a - 1) * math.log(t) + (b - 1) * math.log1p(-t)) if 0 < t < 1 else 0.0
    def area(end: float) -> float:
        h = end / steps
        return h / 3 * math.fsum((1 if i in (0, steps) else 4 if i % 2 else 2) * density(i * h)
                                 for i in range(steps + 1))
    return area(x) / area(1.0)


def test_a_groundedness_gate_and_the_same_bar_on_hallucination_rate_agree_on_a_bound(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Five answers of three sentences, 0, 1, 2, 3 and 3 of them supported by STORE: groundedness 0, 1/3,
    # 2/3, 1, 1 (mean 0.6), hallucination_rate 1 minus each. The bootstrap's lower 95% bound is 4/15
    # (tests/metrics/test_aggregate.py works it out in fractions); the binomial bound is lower: with 0 and
    # 1 added the values' variance is 32/63 - (4/7)^2 = 80/441 and their fourth central moment
    # (2 (4/7)^4 + (5/21)^4 + (2/21)^4 + 3 (3/7)^4) / 7 = 61796/1361367, the variance's upper bound
    # 80/441 + 1.96 sqrt((61796/1361367 - (80/441)^2) / 5) = 0.2793, above the 0.6 * 0.4 of 0/1 values, so
    # they count as 5 trials (never fewer) and the bound is Clopper and Pearson's for 3 of 5, the 2.5%
    # quantile of Beta(3, 3), about 0.147. Hallucination_rate's upper one is 1 minus it: `groundedness=0.14`
    # and `hallucination_rate=0.86` both hold. It came out 0.8 from a resample of other examples, and the run
    # exited 1 on the same bar held.
    without_ragmon_variables(monkeypatch)
    rows = [{"id": f"e{i}", "question": f"What does the store policy say, part {i}?",
             "contexts": [{"id": "store", "text": STORE}], "relevant_ids": ["store"],
             "answer": " ".join(SUPPORTED[:good] + UNSUPPORTED[:3 - good])}
            for i, good in enumerate((0, 1, 2, 3, 3))]
    data = tmp_path / "golden.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    code = main(["replay", str(data), "--quiet", "--confidence", "0.95", "--gate", "groundedness=0.14",
                 "--gate", "hallucination_rate=0.86", "--json", str(tmp_path / "report.json")])
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    (grounded, low, passed), (hallucinated, high, held) = [
        (gate["metric"], gate["value"], gate["passed"]) for gate in report["gates"]]
    spread, fourth = 80 / 441, 61796 / 1361367
    assert spread + 1.96 * math.sqrt((fourth - spread**2) / 5) > 0.24
    assert beta_cdf(low, 3, 3) == pytest.approx(0.025, abs=1e-6)
    assert (grounded, passed, hallucinated, held) == ("groundedness", True, "hallucination_rate", True)
    assert high == round(1 - low, 12)
    # Its lower one, too, is the binomial's (2 of 5, below the bootstrap's 1 - 14/15), groundedness's
    # upper one mirrored.
    other, upper = report["aggregates"]["hallucination_rate"]["ci"]
    assert upper == high and beta_cdf(other, 2, 4) == pytest.approx(0.025, abs=1e-6)
    assert other == round(1 - report["aggregates"]["groundedness"]["ci"][1], 12)
    assert code == EXIT_OK


def test_a_rise_of_hallucination_rate_is_bounded_as_the_same_drop_of_groundedness() -> None:
    # Groundedness 1, 1, 0.5, 0, 0 in the baseline, 0, 0.5, 0.5, 0.5, 0.5 now: changes -1, -0.5, 0, 0.5,
    # 0.5, each resampled mean a multiple of 0.1, the lower 95% bound -0.6. Hallucination_rate's changes
    # are the same negated, so its upper bound is +0.6: a rise of 0.6 holds 0.65 as a drop of 0.6 does.
    # Drawn in ascending order both, its bound came out 0.7 and breached.
    before, after = [1.0, 1.0, 0.5, 0.0, 0.0], [0.0, 0.5, 0.5, 0.5, 0.5]
    comparison = comparison_of({"groundedness": before, "hallucination_rate": [1 - v for v in before]},
                               {"groundedness": after, "hallucination_rate": [1 - v for v in after]})
    drop, rise = drops(comparison, "groundedness=0.65", "hallucination_rate=0.65", confidence=0.95)
    assert (drop.value, drop.passed) == (-0.6, True)
    assert (rise.value, rise.passed) == (0.6, True)


def test_a_bound_read_at_another_level_mirrors_too() -> None:
    # The five answers above, in a Report whose own intervals are at 95%, gated at 90%: the bootstrap's
    # lower bound of groundedness is 1/3 (5/15) there, and the binomial bound of 0.6 over five answers is
    # lower still (Clopper and Pearson's for 3 of 5, above: the 5% quantile of Beta(3, 3), 0.189; the bound
    # a gate reads is the wider), so hallucination_rate's upper bound must be 1 minus
    # it, and one bar holds or breaches both ways. Recomputed without the metric's name, the bootstrap's
    # upper bound of hallucination_rate came out 0.7333 (11/15), not 2/3.
    grounded: list[float | None] = [0.0, 1 / 3, 2 / 3, 1.0, 1.0]
    report = report_with({}, {"groundedness": grounded,
                              "hallucination_rate": [None if v is None else 1 - v for v in grounded]})
    report = replace(report, aggregates={"groundedness": Aggregate(0.6, 5, (0.0, 1.0)),
                                         "hallucination_rate": Aggregate(0.4, 5, (0.0, 1.0))})
    held = decide(report, parse_gates(["groundedness=0.18", "hallucination_rate=0.82"]), confidence=0.9)
    breached = decide(report, parse_gates(["groundedness=0.3", "hallucination_rate=0.7"]), confidence=0.9)
    low, high = held
    assert beta_cdf(low.value, 3, 3) == pytest.approx(0.05, abs=1e-6)
    assert high.value == round(1 - low.value, 12)
    assert [gate.passed for gate in held] == [True, True]
    assert [gate.passed for gate in breached] == [False, False]


ABSTAINED = "I don't know: the documents do not say."


def store_golden(path: Path, answers: Sequence[str], unknown: Collection[int] = ()) -> Path:
    """Question q<i> on STORE answered with answers[i], as a golden set for `ragmon replay`; the contexts
    of q<i> for each i in `unknown` are not recorded."""
    rows = [{"id": f"q{i}", "question": f"What does the store say, part {i}?", "answer": answer,
             **({} if i in unknown else {"contexts": [{"id": "store", "text": STORE}]})}
            for i, answer in enumerate(answers)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def replayed_against(baseline: Path, golden: Path, *flags: str) -> tuple[int, dict[str, Any], str]:
    """`ragmon replay golden --baseline baseline` with drop gates on both claim metrics: its exit code, JSON
    report and Markdown report."""
    out = golden.with_suffix(".out.json")
    page = golden.with_suffix(".md")
    code = main(["replay", str(golden), "--baseline", str(baseline), "--max-drop", "groundedness=0.02",
                 "--max-drop", "hallucination_rate=0.02", "--quiet", "--json", str(out), "--markdown",
                 str(page), *flags])
    return code, json.loads(out.read_text(encoding="utf-8")), page.read_text(encoding="utf-8")


def first_run(golden: Path) -> Path:
    """The baseline: the golden set's own JSON report, written by a run that passed."""
    report = golden.with_suffix(".json")
    assert main(["replay", str(golden), "--quiet", "--json", str(report)]) == EXIT_OK
    return report


def test_an_abstention_gone_to_a_made_up_answer_is_compared_as_an_unsupported_claim(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Four questions on STORE. q0 abstained in the baseline and now answers with one invented sentence;
    # q1-q3 answer with a supported sentence in both runs. The abstention made no claim, so no unsupported
    # one: compared as groundedness 1 (hallucination_rate 0). Paired over the four: baseline
    # (1 + 1 + 1 + 1) / 4 = 1, this run (0 + 1 + 1 + 1) / 4 = 0.75, a drop of 0.25 > 0.02; hallucination_rate
    # (0 + 0 + 0 + 0) / 4 = 0 -> (1 + 0 + 0 + 0) / 4 = 0.25, a rise of 0.25 > 0.02. Exit 1. Left out, as
    # before, both read "unchanged: 1 -> 1 on 3 examples" and the run passed.
    without_ragmon_variables(monkeypatch)
    baseline = first_run(store_golden(tmp_path / "abstaining.jsonl", (ABSTAINED, *SUPPORTED)))
    written = json.loads(baseline.read_text(encoding="utf-8"))
    assert [r["abstained"] for r in written["results"]] == [True, False, False, False]
    code, doc, page = replayed_against(baseline, store_golden(tmp_path / "inventing.jsonl",
                                                              (UNSUPPORTED[0], *SUPPORTED)))
    counted = "on 3 examples measured in both runs and 1 example that abstained in the baseline"
    assert [(g["metric"], g["passed"], g["value"], g["baseline"], g["reason"]) for g in doc["gates"]] == [
        ("groundedness", False, -0.25, 1.0,
         f"dropped 0.25 > 0.02 against the baseline: 1 -> 0.75 {counted} (counted as groundedness 1 there)"),
        ("hallucination_rate", False, 0.25, 0.0,
         f"rose 0.25 > 0.02 against the baseline: 0 -> 0.25 {counted} (counted as hallucination_rate 0 "
         "there)")]
    assert doc["baseline"]["metrics"]["groundedness"] == {
        "baseline": 1.0, "candidate": 0.75, "delta": -0.25, "n": 4, "n_baseline_only": 0,
        "n_candidate_only": 0, "n_baseline_abstained": 1}
    # The baseline's own groundedness of q0 stays undefined (null), said to be its abstention's.
    worse = [(r["id"], r["before"], r["after"], r["baseline_abstained"],
              [c["text"] for c in r["newly_unsupported"]]) for r in doc["baseline"]["regressed"]]
    assert worse == [("q0", None, 0.0, True, [UNSUPPORTED[0]])]
    assert [(r["id"], r["after"], r["baseline_abstained"])
            for r in doc["baseline"]["worsened"]["hallucination_rate"]] == [("q0", 1.0, True)]
    assert "| groundedness | 1.000 | 0.750 | -0.25 | 4 (1 abstained in the baseline) |" in page
    assert "#### `q0`: groundedness abstained -> 0\n" in page
    assert f"> {UNSUPPORTED[0]}\n" in page
    assert code == EXIT_BREACHED


def test_an_answer_now_abstaining_is_left_out_so_it_hides_no_regression(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The reverse. The baseline's q0 made up a sentence (groundedness 0) and abstains now; q1 goes from a
    # supported sentence to an invented one; q2 and q3 are supported in both. Compared as 1, q0's
    # abstention would make the means (0 + 1 + 1 + 1) / 4 = 0.75 then and (1 + 0 + 1 + 1) / 4 = 0.75 now,
    # "unchanged", hiding q1; compared as 0, it would be a breach for an answer that claims nothing. Left
    # out: over q1-q3, (1 + 1 + 1) / 3 = 1 -> (0 + 1 + 1) / 3 = 0.6667, a drop of 1/3, named q1's.
    without_ragmon_variables(monkeypatch)
    baseline = first_run(store_golden(tmp_path / "main.jsonl", (UNSUPPORTED[0], *SUPPORTED)))
    code, doc, _ = replayed_against(baseline, store_golden(
        tmp_path / "now.jsonl", (ABSTAINED, UNSUPPORTED[1], *SUPPORTED[1:])))
    (drop, rise) = doc["gates"]
    alone = "on 3 examples measured in both runs (1 more in the baseline only, not compared)"
    assert (drop["passed"], drop["reason"]) == (
        False, f"dropped 0.3333 > 0.02 against the baseline: 1 -> 0.6667 {alone}")
    assert (rise["passed"], rise["reason"]) == (
        False, f"rose 0.3333 > 0.02 against the baseline: 0 -> 0.3333 {alone}")
    assert [(r["id"], r["before"], r["after"]) for r in doc["baseline"]["regressed"]] == [("q1", 1.0, 0.0)]
    assert code == EXIT_BREACHED


def test_a_baseline_whose_contexts_were_unknown_is_no_abstention(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The baseline's q0 made up a sentence with its contexts unknown: no claim decided, so no groundedness,
    # and no abstention either. Now its contexts are known and the sentence is unsupported (0). Nothing in
    # the baseline to pair it with: over q1-q3, 1 -> 1 and 0 -> 0, unchanged, exit 0. Read as an
    # abstention (groundedness 1 there), it would be a drop of 0.25 and a breach.
    without_ragmon_variables(monkeypatch)
    baseline = first_run(store_golden(tmp_path / "unknown.jsonl", (UNSUPPORTED[0], *SUPPORTED), unknown={0}))
    code, doc, _ = replayed_against(baseline, store_golden(tmp_path / "known.jsonl",
                                                           (UNSUPPORTED[0], *SUPPORTED)))
    alone = "on 3 examples measured in both runs (1 more in this run only, not compared)"
    assert [(g["passed"], g["reason"]) for g in doc["gates"]] == [
        (True, f"unchanged against the baseline: 1 -> 1 {alone}"),
        (True, f"unchanged against the baseline: 0 -> 0 {alone}")]
    assert (doc["baseline"]["caveats"], code) == ([], EXIT_OK)
    written = json.loads(baseline.read_text(encoding="utf-8"))
    assert [r["abstained"] for r in written["results"]] == [False, False, False, False]


def old_baseline(golden: Path) -> Path:
    """The golden set's JSON report as a ragmon before `abstained` wrote it."""
    doc = json.loads(first_run(golden).read_text(encoding="utf-8"))
    for result in doc["results"]:
        del result["abstained"]
    old = golden.with_suffix(".old.json")
    old.write_text(json.dumps(doc), encoding="utf-8")
    return old


def unrecorded(old: Path, count: str) -> str:
    """The caveat of a baseline that does not record abstentions, `count` ("1 of the 4 ... lacks") its
    pairs left out."""
    return (f"the baseline {old} does not record which answers abstained (an older ragmon wrote it): {count} "
            f"groundedness there and {'has' if count.endswith('lacks') else 'have'} it now, left out of the "
            f"comparison, so a drop gate cannot see one gone from an abstention to a made-up answer (a "
            f"baseline written by this ragmon can)")


def test_a_baseline_that_does_not_record_abstentions_is_compared_as_before_with_a_note(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first test's runs, the baseline written by a ragmon before `abstained`: its q0 has no
    # groundedness, abstention or contexts unknown alike, and is left out: over q1-q3, 1 -> 1, unchanged,
    # as before; one line says what the comparison could not see.
    without_ragmon_variables(monkeypatch)
    old = old_baseline(store_golden(tmp_path / "abstaining.jsonl", (ABSTAINED, *SUPPORTED)))
    code, report, page = replayed_against(old, store_golden(tmp_path / "inventing.jsonl",
                                                            (UNSUPPORTED[0], *SUPPORTED)))
    counted = "on 3 examples measured in both runs (1 more in this run only, not compared)"
    assert [(g["passed"], g["reason"]) for g in report["gates"]] == [
        (True, f"unchanged against the baseline: 1 -> 1 {counted}"),
        (True, f"unchanged against the baseline: 0 -> 0 {counted}")]
    caveat = unrecorded(old, "1 of the 4 examples both runs have lacks")
    assert report["baseline"]["caveats"] == [caveat]
    assert f"**Warning**: {caveat}.\n" in page
    assert code == EXIT_OK


def test_an_old_baseline_is_warned_of_only_for_pairs_a_claim_gate_would_have_compared(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The baseline, without `abstained`: q0 and q1 abstained, q2's contexts were unknown, q3 supported.
    # Now q0 makes up a sentence and q2, its contexts known, is supported: groundedness now and none there,
    # either of which may have been an abstention, compared had the baseline said so: 2 of the 4. q1 still
    # abstains (no groundedness now: nothing to compare), q3 had groundedness there: not counted. Said on
    # stderr after scoring, and in the JSON report. With the drop gate on answer_relevance alone no
    # pair is left out for want of `abstained`: no warning.
    without_ragmon_variables(monkeypatch)
    old = old_baseline(store_golden(tmp_path / "main.jsonl", (ABSTAINED, ABSTAINED, *SUPPORTED[:2]),
                                    unknown={2}))
    now = store_golden(tmp_path / "now.jsonl", (UNSUPPORTED[0], ABSTAINED, *SUPPORTED[:2]))
    out = tmp_path / "now.json"
    capsys.readouterr()
    assert main(["replay", str(now), "--baseline", str(old), "--max-drop", "hallucination_rate=0.02",
                 "--json", str(out)]) == EXIT_OK
    caveat = unrecorded(old, "2 of the 4 examples both runs have lack")
    assert capsys.readouterr().err.splitlines()[-1] == f"ragmon replay: warning: {caveat}"
    assert json.loads(out.read_text(encoding="utf-8"))["baseline"]["caveats"] == [caveat]
    assert main(["replay", str(now), "--baseline", str(old), "--max-drop", "answer_relevance=1", "--json",
                 str(out)]) == EXIT_OK
    assert "abstained" not in capsys.readouterr().err
    assert json.loads(out.read_text(encoding="utf-8"))["baseline"]["caveats"] == []
