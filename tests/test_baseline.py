"""Reading a baseline report (every way it can be no baseline, named), refusing an incomparable one, and
comparing by shared ids: new and gone examples, paired means, regressed examples and their newly
unsupported sentences. A run's own JSON report is a baseline for the next run."""

from __future__ import annotations

import gzip
import json
import os
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ragmon
import ragmon.baseline
import ragmon.rules
from ragmon.baseline import Baseline, BaselineExample, caveats, check_comparable, compare, from_dict, load
from ragmon.cli import main
from ragmon.errors import InputError
from ragmon.evaluation import evaluate
from ragmon.judges.base import JudgeError
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Claim, ClaimVerdict, Context, EvalConfig, Example, Report
from ragmon.report import json as json_report

RETURNS = "Returns are accepted within 30 days of purchase."
REFUNDS = "Refunds are paid to the original card."
INVENTED = "Purple elephants sing opera."
GIFT = "Gift cards can be exchanged for cash."


def example(example_id: str, answer: str | None, context: str = RETURNS) -> Example:
    return Example(example_id, "How long do I have to return an item?", (Context("doc-1", context),), answer,
                   frozenset({"doc-1"}))


def scored(*examples: Example) -> Report:
    return evaluate(list(examples), LexicalJudge(), EvalConfig(k=5))


def as_baseline(report: Report, path: str = "main.json") -> Baseline:
    """Through the JSON report, as CI hands it over."""
    return from_dict(json.loads(json_report.render(report, ())), path)


def report_doc(**changes: Any) -> dict[str, Any]:
    doc = json.loads(json_report.render(scored(example("a", RETURNS)), ()))
    doc.update(changes)
    return doc


# --- reading --------------------------------------------------------------------------------------


def test_a_runs_json_report_round_trips_as_its_own_baseline(tmp_path: Path) -> None:
    # The same run against itself: every example shared, every change 0, nothing regressed. b keeps its
    # INVENTED sentence unsupported in both, which is no regression; c abstains (no groundedness).
    report = scored(example("a", RETURNS), example("b", f"{REFUNDS} {INVENTED}", REFUNDS),
                    example("c", "I don't know."))
    path = tmp_path / "main.json"
    path.write_text(json_report.render(report, ()), encoding="utf-8")
    baseline = load(path)
    assert (baseline.path, baseline.ragmon_version, baseline.k) == (str(path), ragmon.__version__, 5)
    assert baseline.judge == {"name": "lexical", "threshold": LexicalJudge().threshold}
    assert list(baseline.examples) == ["a", "b", "c"]
    assert baseline.examples["b"].unsupported == frozenset({INVENTED})
    comparison = compare(baseline, report)
    assert (comparison.shared, comparison.new, comparison.gone, comparison.regressed) == (3, 0, (), ())
    grounded = comparison.metrics["groundedness"]
    assert (grounded.baseline, grounded.candidate, grounded.delta, grounded.n) == (0.75, 0.75, 0.0, 2)
    assert all(change.delta in (0.0, None) for change in comparison.metrics.values())


def test_an_incomplete_baseline_is_refused_with_its_error() -> None:
    doc = json.loads(json_report.render_error("golden.jsonl:3: invalid JSON"))
    with pytest.raises(InputError) as info:
        from_dict(doc, "main.json")
    assert str(info.value) == ("main.json: the baseline run did not complete (golden.jsonl:3: invalid JSON), "
                               "so it has no figures to compare with")


@pytest.mark.parametrize("layout", [2, 0, "1", None])
def test_a_report_format_this_ragmon_does_not_read_is_refused(layout: object) -> None:
    # A report written by a later ragmon, whose fields may mean something else now, or a hand-edited one.
    doc = json.loads(json_report.render_error("x")) | {"report_format": layout, "complete": True}
    with pytest.raises(InputError) as info:
        from_dict(doc, "main.json")
    assert str(info.value) == (f"main.json: the baseline's report_format is {layout!r}, which ragmon "
                               f"{ragmon.__version__} does not read (it writes format 1): compare with the "
                               "ragmon that wrote it, or give a report written by this one's `ragmon replay "
                               "--json` (field 'report_format')")


@pytest.mark.parametrize(("content", "message"), [
    ("{\n", "{path}:2: the baseline is not valid JSON (Expecting property name enclosed in double quotes, "
            "column 1) (the text ends mid-report: a copy or download cut short?): give a report written by "
            "`ragmon replay --json`"),
    # Cut inside a string: json names the line and column where the string began, not the end of the text.
    ('{\n  "ragmon_version": "0.1', "{path}:2: the baseline is not valid JSON (Unterminated string starting "
                                     "at, column 21) (the text ends mid-report: a copy or download cut "
                                     "short?): give a report written by `ragmon replay --json`"),
    # Cut right after a value: json's error is at the end of the text itself.
    ('{"k": 5', "{path}:1: the baseline is not valid JSON (Expecting ',' delimiter, column 8) (the text "
                "ends mid-report: a copy or download cut short?): give a report written by `ragmon replay "
                "--json`"),
    # A broken report that is not cut short gets no guess.
    ('{"k": 5,, "j": 1}', "{path}:1: the baseline is not valid JSON (Expecting property name enclosed in "
                          "double quotes, column 9): give a report written by `ragmon replay --json`"),
    # Main's artifact never uploaded, or the step that wrote it failed: "Expecting value, column 1" before.
    ("", "{path}: the baseline is empty: give a report written by `ragmon replay --json`"),
    (" \n\n", "{path}: the baseline is empty: give a report written by `ragmon replay --json`"),
    (gzip.compress(b""), "{path}: the baseline is empty: give a report written by `ragmon replay --json`"),
    # The other reports of a run, given for its JSON report: each was "Expecting value, column 1".
    ('<?xml version="1.0" encoding="utf-8"?>\n<testsuite name="ragmon">',
     "{path}:1: the baseline is not valid JSON (Expecting value, column 1) (XML: the --junit report?): give "
     "a report written by `ragmon replay --json`"),
    ("## ragmon replay: PASS\n",
     "{path}:1: the baseline is not valid JSON (Expecting value, column 1) (Markdown: the --markdown "
     "report?): give a report written by `ragmon replay --json`"),
    ("\nragmon replay: 3 examples, judge lexical, k=5\n",
     "{path}:2: the baseline is not valid JSON (Expecting value, column 1) (the terminal summary?): give a "
     "report written by `ragmon replay --json`"),
    # ragmon calibrate's report has a ragmon_version and `complete`: it was "'passed' is missing".
    ('{"report": "ragmon calibrate", "ragmon_version": "0.1.0", "complete": true, "examples": 11}',
     '{path}: the baseline is the report of "ragmon calibrate" (its field \'report\'), not of a replay: give '
     'a report written by `ragmon replay --json`'),
    # A golden JSONL file given by mistake: its second record is "extra data" after the first.
    ('{"id": "a"}\n{"id": "b"}\n', "{path}:2: the baseline is not valid JSON (Extra data, column 1) (a value "
                                   "a line: JSON Lines, a golden set?): give a report written by `ragmon "
                                   "replay --json`"),
    # A report edited by hand, a trailing comma left: Python 3.13's json says "Illegal trailing comma
    # before end of object" at the comma, a line earlier; every Python now says what 3.11 does.
    ('{"ragmon_version": "0.1.0",\n}',
     "{path}:2: the baseline is not valid JSON (Expecting property name enclosed in double quotes, column "
     "1): give a report written by `ragmon replay --json`"),
    ('{"id": "a", "question": "q"}', "{path}: the baseline is not a ragmon report (no 'ragmon_version'): "
                                     "give a report written by `ragmon replay --json`"),
    ("[]", "{path}: the baseline is not a ragmon report (no 'ragmon_version'): give a report written by "
           "`ragmon replay --json`"),
    (b"\xff\xfe{", "{path}: the baseline is not UTF-8 JSON: give a report written by `ragmon replay --json`"),
    # Valid JSON that json refuses with a ValueError or a RecursionError, not a JSONDecodeError.
    ('{"k": 1' + "0" * 5000 + "}", "{path}: the baseline is not readable JSON (Exceeds the limit (4300 "
                                   "digits) for integer string conversion): give a report written by `ragmon "
                                   "replay --json`"),
    ("[" * 100_000 + "]" * 100_000, "{path}: the baseline is not readable JSON (nested too deeply): give a "
                                    "report written by `ragmon replay --json`"),
], ids=["truncated", "cut-in-a-string", "cut-after-a-value", "broken", "empty", "blank", "empty-gzip",
        "junit", "markdown", "terminal", "calibrate", "jsonl", "trailing-comma", "a-record", "array",
        "binary", "long-number", "deep"])
def test_a_file_that_is_no_report_is_named(tmp_path: Path, content: str | bytes, message: str) -> None:
    path = tmp_path / "main.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(InputError) as info:
        load(path)
    assert str(info.value) == message.format(path=path)


@pytest.mark.parametrize("plain", [True, False], ids=["plain", "gzip"])
def test_a_baseline_past_the_bound_is_refused_before_it_is_held(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plain: bool) -> None:
    # Read whole, `--baseline /dev/zero` grew to 24 GB before the kernel killed the run, and a 2 MB gzip of
    # spaces took 4 GB. Past the bound (here 1,000 bytes; 1 GiB in use), either is refused by its size.
    monkeypatch.setattr(ragmon.baseline, "MAX_BASELINE_BYTES", 1_000)
    spaces = b" " * 5_000
    path = tmp_path / "main.json"
    path.write_bytes(spaces if plain else gzip.compress(spaces))
    with pytest.raises(InputError) as info:
        load(path)
    assert str(info.value) == (f"{path}: the baseline holds more than 1,000 bytes (decompressed), more than "
                               "a report of any run: give a report written by `ragmon replay --json`")


def test_a_corrupt_gzip_baseline_is_called_that_not_unreadable(
        tmp_path: Path, replay: Callable[..., int], capsys: pytest.CaptureFixture[str]) -> None:
    # A CI artifact damaged in transit: its last 8 bytes are the CRC-32 and the size of the report, and a
    # zeroed CRC no longer matches. gzip's error is an OSError, which read as a file that could not be read
    # (a permission, a missing disk), and pointed the user at the runner rather than the artifact.
    packed = gzip.compress(json_report.render(scored(example("a", RETURNS)), ()).encode())
    base = tmp_path / "main.json.gz"
    base.write_bytes(packed[:-8] + bytes(4) + packed[-4:])
    data = golden(tmp_path / "golden.jsonl", RETURNS)
    assert replay(data, "--baseline", base, "--max-drop", "groundedness=0.02") == 2
    assert capsys.readouterr().err == (
        f"ragmon replay: error: {base}: the baseline is not valid gzip data (CRC check failed 0x0 != "
        f"0x{zlib.crc32(json_report.render(scored(example('a', RETURNS)), ()).encode()):x}): give a report "
        f"written by `ragmon replay --json`\n")


def test_a_baseline_of_exactly_the_bound_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The bound is the most a report may hold, not the first size refused.
    path = tmp_path / "main.json"
    path.write_text(json_report.render(scored(example("a", RETURNS)), ()), encoding="utf-8")
    monkeypatch.setattr(ragmon.baseline, "MAX_BASELINE_BYTES", path.stat().st_size)
    assert list(load(path).examples) == ["a"]


@pytest.mark.parametrize("past", [0, 1], ids=["at-the-limit", "past-it"])
def test_the_text_a_message_quotes_of_the_file_is_clipped_only_past_its_limit(past: int) -> None:
    # Another tool's report names itself in 'report', quoted up to 60 characters; an incomplete run's error
    # is quoted up to 300: a hand-made file's may be any length. At the limit whole; past it, one less
    # and an ellipsis.
    kind = "k" * (60 + past)
    with pytest.raises(InputError) as info:
        from_dict({"report": kind, "ragmon_version": "0.1.0", "complete": True}, "main.json")
    quoted = str(info.value).split('"')[1]
    assert quoted == (f"{'k' * 59}…" if past else kind)  # the ellipsis as written, not as JSON's \u2026
    error = "e" * (300 + past)
    with pytest.raises(InputError) as info:
        from_dict(json.loads(json_report.render_error(error)), "main.json")
    shown = f"{'e' * 299}…" if past else error
    assert str(info.value) == (f"main.json: the baseline run did not complete ({shown}), so it has no "
                               f"figures to compare with")


def test_a_report_from_before_report_format_is_read_as_format_1() -> None:
    # Reports before the field had none: they are of the first layout, not refused as an unknown one.
    doc = report_doc()
    del doc["report_format"]
    assert list(from_dict(doc, "main.json").examples) == ["a"]


def test_the_first_scoring_rules_are_read() -> None:
    # Rules are numbered from 1: 0 is refused (above), 1 is a baseline's rules like any other.
    assert from_dict(report_doc(scoring_rules=1), "main.json").scoring_rules == 1


def test_a_missing_baseline_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"main\.json: cannot read the baseline report: No such file"):
        load(tmp_path / "main.json")


def broken(field: str) -> dict[str, Any]:
    """A report whose `field` (a path like results.0.claims.0.supported) is a string."""
    doc = report_doc()
    *parents, last = field.split(".")
    target: Any = doc
    for key in parents:
        target = target[int(key)] if key.isdigit() else target[key]
    target[int(last) if last.isdigit() else last] = "oops"
    return doc


@pytest.mark.parametrize(("doc", "field", "wanted"), [
    (broken("complete"), "complete", "expected a boolean"),
    (broken("passed"), "passed", "expected a boolean"),
    (report_doc(passed=False, gates={}), "gates", "expected a list"),
    (report_doc(passed=False, gates=[{"metric": "groundedness", "passed": "no"}]), "gates[0].passed",
     "expected a boolean"),
    (report_doc(passed=False, gates=[{"metric": "groundedness", "passed": False, "max_drop": "0.02"}]),
     "gates[0].max_drop", "expected a number or null"),
    (report_doc(results=[{**report_doc()["results"][0], "question": 5}]), "results[0].question",
     "expected a string"),
    (broken("k"), "k", "expected a whole number"),
    (report_doc(k=True), "k", "expected a whole number"),  # a bool is no count, though Python says int
    (broken("judge"), "judge", "expected an object"),
    (report_doc(judge={"name": 5}), "judge.name", "expected a string"),
    (report_doc(ragmon_version=None), "ragmon_version", "expected a string"),  # "ragmon None" in the warning
    (broken("scoring_rules"), "scoring_rules", "expected a whole number"),
    (report_doc(scoring_rules=True), "scoring_rules", "expected a whole number"),
    (report_doc(scoring_rules=0), "scoring_rules", "expected a whole number of 1 or more"),
    (broken("results"), "results", "expected a list"),
    (broken("results.0.metrics.recall"), "results[0].metrics.recall", "expected a number or null"),
    (broken("results.0.claims.0.supported"), "results[0].claims[0].supported", "expected a boolean"),
    (broken("results.0.claims.0"), "results[0].claims[0]", "expected an object"),
    (broken("results.0.abstained"), "results[0].abstained", "expected a boolean"),
    (report_doc(results=[{**report_doc()["results"][0], "abstained": None}]), "results[0].abstained",
     "expected a boolean"),
], ids=lambda value: value if isinstance(value, str) else "")
def test_a_field_of_the_wrong_type_is_named(doc: dict[str, Any], field: str, wanted: str) -> None:
    with pytest.raises(InputError) as info:
        from_dict(doc, "main.json")
    assert str(info.value) == f"main.json: the baseline is not a ragmon report: {wanted} (field {field!r})"


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1.5", "-0.25", "1" + "0" * 400])
def test_a_metric_that_is_no_share_is_named(tmp_path: Path, value: str) -> None:
    # Every metric is between 0 and 1, and a report writes an undefined one as null. json reads Infinity
    # and NaN all the same: Infinity made the change infinite, and stopped --confidence's bootstrap with a
    # traceback; NaN left the example out without a word; 10^400 fails float conversion.
    text = json_report.render(scored(example("a", RETURNS)), ())
    assert text.count('"groundedness": 1.0') == 1  # in results; the aggregates hold {"mean": ...}
    path = tmp_path / "main.json"
    path.write_text(text.replace('"groundedness": 1.0', f'"groundedness": {value}'), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load(path)
    assert str(info.value) == (f"{path}: the baseline is not a ragmon report: expected a number between 0 "
                               f"and 1 or null (field 'results[0].metrics.groundedness')")


def test_a_missing_field_and_a_repeated_id_are_named() -> None:
    doc = report_doc()
    del doc["results"][0]["claims"]
    with pytest.raises(InputError) as info:
        from_dict(doc, "main.json")
    assert str(info.value) == ("main.json: the baseline is not a ragmon report: 'claims' is missing; give a "
                               "report written by `ragmon replay --json` (field 'results[0].claims')")
    doc = report_doc()
    doc["results"].append(doc["results"][0])
    with pytest.raises(InputError, match=r"names example 'a' twice \(field 'results\[1\]\.id'\)"):
        from_dict(doc, "main.json")


def test_a_repeated_id_of_100000_characters_is_quoted_by_its_two_ends() -> None:
    # Quoted whole, the id made a 100 KB error. Its first and last 30 characters are shown, so the end
    # that tells it from its neighbours (here a trailing 'z') is still there.
    long = "a" * 99_999 + "z"
    doc = report_doc()
    doc["results"] = [dict(doc["results"][0], id=long), dict(doc["results"][0], id=long)]
    with pytest.raises(InputError) as info:
        from_dict(doc, "main.json")
    quoted = f"'{'a' * 30}'...'{'a' * 29}z'"
    assert str(info.value) == f"main.json: the baseline names example {quoted} twice (field 'results[1].id')"


# --- comparable -----------------------------------------------------------------------------------


def test_another_judge_threshold_or_k_is_not_comparable() -> None:
    baseline = as_baseline(scored(example("a", RETURNS)))  # lexical at its default threshold, k=5
    default = LexicalJudge().threshold
    check_comparable(baseline, {"name": "lexical", "threshold": default}, 5)  # the same: no error
    with pytest.raises(InputError) as info:
        check_comparable(baseline, {"name": "lexical", "threshold": 0.5}, 3)
    assert str(info.value) == (f"main.json: the baseline is not comparable with this run: judge threshold "
                               f"{default} in the baseline, 0.5 in this run; k 5 in the baseline, 3 in this "
                               f"run (score both with the same judge, judge settings and --k)")
    with pytest.raises(InputError, match=r'judge "lexical" in the baseline, "claude" in this run \(score'):
        check_comparable(baseline, {"name": "claude", "model": "claude-x", "temperature": None}, 5)
    with pytest.raises(InputError, match=r"judge prompt_version \(not set\) in the baseline, 3 in this run"):
        check_comparable(baseline, {"name": "lexical", "threshold": default, "prompt_version": 3}, 5)
    # A setting is shown as written, not escaped: a model named in another script reads as itself.
    with pytest.raises(InputError, match=r'judge model \(not set\) in the baseline, "modèle" in this run'):
        check_comparable(baseline, {"name": "lexical", "threshold": default, "model": "modèle"}, 5)


# --- comparing ------------------------------------------------------------------------------------


def test_the_paired_changes_leave_out_an_example_one_run_alone_measured() -> None:
    # a, b and c answer RETURNS in the baseline (groundedness 1). Now a still does (1 -> 1), b abstains (no
    # groundedness: measured in the baseline alone) and c adds INVENTED (1 -> 1/2). The paired changes a
    # --confidence drop gate resamples are a's and c's, 0 and -1/2; b is counted apart, not paired.
    baseline = as_baseline(scored(example("a", RETURNS), example("b", RETURNS), example("c", RETURNS)))
    report = scored(example("a", RETURNS), example("b", "I don't know."),
                    example("c", f"{RETURNS} {INVENTED}"))
    grounded = compare(baseline, report).metrics["groundedness"]
    assert (grounded.differences, grounded.n, grounded.one_sided) == ((0.0, -0.5), 2, ((1, "the baseline"),))
    assert (grounded.baseline, grounded.candidate, grounded.delta) == (1.0, 0.75, -0.25)


def test_a_change_of_float_rounding_alone_is_0_not_minus_0() -> None:
    # "a" makes three claims, INVENTED the only one its page lacks: hallucination_rate 1/3 now. A report
    # that wrote it as 1 - groundedness holds 1 - 2/3 = 0.33333333333333337; the change, -5.6e-17, rounds
    # to 0, which the reports print as "0", not "-0".
    page = f"{RETURNS} {REFUNDS}"
    report = scored(example("a", f"{RETURNS} {REFUNDS} {INVENTED}", page))
    doc = json.loads(json_report.render(report, ()))
    doc["results"][0]["metrics"]["hallucination_rate"] = 1 - 2 / 3
    hallucination = compare(from_dict(doc, "main.json"), report).metrics["hallucination_rate"]
    assert (hallucination.baseline, hallucination.candidate) == (1 - 2 / 3, 1 / 3)
    assert f"{hallucination.delta:g}" == "0"


def test_examples_are_compared_by_shared_id_only() -> None:
    # Baseline a, b, c; this run b, c, d, e. Shared b and c; new d and e; gone a. a was the baseline's
    # weak one (1/2) and d is this run's (1/2): the whole-run means are 0.8333 and 0.875, but on the shared
    # b and c groundedness is 1 in both runs: unchanged.
    weak = f"{RETURNS} {INVENTED}"
    baseline = as_baseline(scored(example("a", weak), example("b", RETURNS), example("c", RETURNS)))
    report = scored(example("b", RETURNS), example("c", RETURNS), example("d", weak), example("e", RETURNS))
    comparison = compare(baseline, report)
    assert (comparison.shared, comparison.new, comparison.gone) == (2, 2, ("a",))
    grounded = comparison.metrics["groundedness"]
    assert (grounded.baseline, grounded.candidate, grounded.delta, grounded.n) == (1.0, 1.0, 0.0, 2)
    assert (grounded.baseline_n, grounded.candidate_n) == (3, 4)
    assert comparison.regressed == ()


def test_regressed_examples_quote_only_their_newly_unsupported_sentences() -> None:
    # a: 1 -> 1/2, GIFT newly unsupported. b: INVENTED unsupported in both; REFUNDS' supported sentence
    # dropped, so 1/2 -> 0 with nothing new. c: abstained (no groundedness), now answers GIFT: became
    # unsupported, compared as 1 -> 0 (an abstention makes no unsupported claim). d: 1/2 -> 1 got better.
    # Biggest drop first: c (by 1), then a and b (by 1/2; a first, as in the run). c's own groundedness
    # in the baseline stays undefined (None), marked as abstained.
    baseline = as_baseline(scored(example("a", RETURNS), example("b", f"{REFUNDS} {INVENTED}", REFUNDS),
                                  example("c", "I don't know."), example("d", f"{RETURNS} {INVENTED}")))
    report = scored(example("a", f"{RETURNS} {GIFT}"), example("b", INVENTED, REFUNDS), example("c", GIFT),
                    example("d", RETURNS))
    regressed = compare(baseline, report).regressed
    assert [(c.result.example.id, c.before, c.after, c.abstained) for c in regressed] == [
        ("c", None, 0.0, True), ("a", 1.0, 0.5, False), ("b", 0.5, 0.0, False)]
    assert [[v.claim.text for v in c.newly_unsupported] for c in regressed] == [[GIFT], [GIFT], []]


def test_worsened_follows_each_metrics_direction() -> None:
    # hallucination_rate is worse when higher: c abstained and now makes an unsupported sentence (compared
    # as 0 -> 1, a rise of 1, first), a rose 0 -> 1/2. recall is not a claim metric: e, which lost doc-1
    # from its contexts, fell 1 -> 0.
    baseline = as_baseline(scored(example("a", RETURNS), example("c", "I don't know."),
                                  example("e", RETURNS)))
    moved = Example("e", "How long?", (Context("doc-2", RETURNS),), RETURNS, frozenset({"doc-1"}))
    comparison = compare(baseline, scored(example("a", f"{RETURNS} {GIFT}"), example("c", GIFT), moved))
    assert [(c.result.example.id, c.before, c.after) for c in comparison.worsened("hallucination_rate")] == [
        ("c", None, 1.0), ("a", 0.0, 0.5)]
    assert [(c.result.example.id, c.before, c.after) for c in comparison.worsened("recall")] == [
        ("e", 1.0, 0.0)]


def test_a_newly_unsupported_answer_is_listed_after_the_drops_against_an_older_baseline() -> None:
    # A report from before `abstained`: x1, x2 and y said "I don't know." then (no groundedness, nothing
    # saying why), and each is compared only by what it claims now. x1 (RETURNS and INVENTED) and x2
    # (INVENTED) make an unsupported claim: worse, after s, whose drop (1 -> 1/2) has a size, the worst
    # first: x2 (groundedness 0, hallucination_rate 1) before x1 (1/2). y's one claim is supported: not worse.
    declined = [example(example_id, "I don't know.") for example_id in ("x1", "x2", "y")]
    doc = json.loads(json_report.render(scored(example("s", RETURNS), *declined), ()))
    for result in doc["results"]:
        del result["abstained"]
    report = scored(example("s", f"{RETURNS} {INVENTED}"), example("x1", f"{RETURNS} {INVENTED}"),
                    example("x2", INVENTED), example("y", RETURNS))
    comparison = compare(from_dict(doc, "main.json"), report)
    assert [(c.result.example.id, c.before, c.after) for c in comparison.regressed] == [
        ("s", 1.0, 0.5), ("x2", None, 0.0), ("x1", None, 0.5)]
    assert [(c.result.example.id, c.before, c.after) for c in comparison.worsened("hallucination_rate")] == [
        ("s", 0.0, 0.5), ("x2", None, 1.0), ("x1", None, 0.5)]


def test_whitespace_does_not_make_a_sentence_new() -> None:
    # This run's answer has the invented sentence with two spaces in it: the same sentence as before.
    before = BaselineExample({"groundedness": 1.0}, frozenset({INVENTED}))
    baseline = Baseline("main.json", "0.1.0", {"name": "lexical"}, 5, {"b": before})
    (change,) = compare(baseline, scored(example("b", f"{RETURNS} Purple  elephants sing opera."))).regressed
    assert change.newly_unsupported == () and change.after == 0.5


def test_only_a_baseline_before_the_read_out_names_examples_it_moved() -> None:
    # "a" answers RETURNS citing doc-1: this build reads "(doc-1)" out, so its claim is RETURNS, supported.
    # Its baseline, hand-written as rules 14 wrote it, kept "(doc-1)" in the claim and so scored 0 (a term
    # the page lacks). Against rules 14 the example is named; against this build's rules the same file
    # names nothing (those rules read citations out too, so a claim that differs is another answer).
    doc = json.loads(json_report.render(scored(example("a", RETURNS)), ()))
    (claim,) = doc["results"][0]["claims"]
    claim.update(text=f"{RETURNS[:-1]} (doc-1).", supported=False)
    doc["results"][0]["metrics"].update(groundedness=0.0, hallucination_rate=1.0)
    report = scored(example("a", f"{RETURNS[:-1]} (doc-1)."))
    for rules, named in ((14, True), (ragmon.rules.SCORING_RULES, False)):
        comparison = compare(from_dict({**doc, "scoring_rules": rules}, "main.json"), report)
        assert comparison.scoring_rules == rules
        said = "1 of the 1 examples both runs have is scored otherwise by the new rules ('a')"
        assert any(said in caveat for caveat in comparison.caveats) is named
        assert comparison.metrics["groundedness"].delta == 1.0  # 0 -> 1 either way: the gate reads it


def test_the_read_out_caveat_gives_the_rest_unchanged_and_is_left_out_if_nothing_moved() -> None:
    # Against rules 14, "a" is scored otherwise by the read-out alone (as above: 0 -> 1) and "b" answered
    # RETURNS then and now (1 -> 1): over b alone the gated groundedness is unchanged. With b alone, no
    # example moved, and nothing is said.
    doc = json.loads(json_report.render(scored(example("a", RETURNS), example("b", RETURNS)), ()))
    doc["results"][0]["claims"][0].update(text=f"{RETURNS[:-1]} (doc-1).", supported=False)
    doc["results"][0]["metrics"].update(groundedness=0.0, hallucination_rate=1.0)
    baseline = from_dict({**doc, "scoring_rules": 14}, "main.json")
    both = compare(baseline, scored(example("a", f"{RETURNS[:-1]} (doc-1)."), example("b", RETURNS)),
                   gated=("groundedness",))
    assert len(both.caveats) == 1
    assert both.caveats[0].startswith("1 of the 2 examples both runs have is scored otherwise by the new "
                                      "rules ('a'): ")
    assert "; without them, groundedness unchanged (1 -> 1 over 1); refresh the baseline" in both.caveats[0]
    assert compare(baseline, scored(example("b", RETURNS)), gated=("groundedness",)).caveats == ()


def test_the_read_out_caveat_names_three_examples_and_counts_the_rest() -> None:
    # Four examples each scored otherwise by the read-out alone (0 -> 1, as above): three are named, enough
    # to find them in the report, and the count says how many.
    ids = ("a", "b", "c", "d")
    doc = json.loads(json_report.render(scored(*(example(example_id, RETURNS) for example_id in ids)), ()))
    for result in doc["results"]:
        result["claims"][0].update(text=f"{RETURNS[:-1]} (doc-1).", supported=False)
        result["metrics"].update(groundedness=0.0, hallucination_rate=1.0)
    report = scored(*(example(example_id, f"{RETURNS[:-1]} (doc-1).") for example_id in ids))
    (caveat,) = compare(from_dict({**doc, "scoring_rules": 14}, "main.json"), report).caveats
    assert caveat.startswith("4 of the 4 examples both runs have are scored otherwise by the new rules ('a', "
                             "'b', 'c', ...): ")


def test_a_citation_in_a_later_sentence_is_read_out_of_the_baseline_too() -> None:
    # "a" answers RETURNS, then REFUNDS citing doc-1, both on its page. Rules 14 kept "(doc-1)" in the second
    # claim, unsupported (a term the page lacks): groundedness 1/2, now 1 by the read-out alone, so "a" is
    # named. Each baseline claim was read out as if it began the answer, and only a citation in the first
    # sentence was seen: "a" went unnamed, its rules-made gain counted as this run's.
    page = f"{RETURNS} {REFUNDS}"
    doc = json.loads(json_report.render(scored(example("a", f"{RETURNS} {REFUNDS}", page)), ()))
    doc["results"][0]["claims"][1].update(text=f"{REFUNDS[:-1]} (doc-1).", supported=False)
    doc["results"][0]["metrics"].update(groundedness=0.5, hallucination_rate=0.5)
    report = scored(example("a", f"{RETURNS} {REFUNDS[:-1]} (doc-1).", page))
    comparison = compare(from_dict({**doc, "scoring_rules": 14}, "main.json"), report)
    assert comparison.metrics["groundedness"].delta == 0.5
    said = "1 of the 1 examples both runs have is scored otherwise by the new rules ('a')"
    assert any(said in caveat for caveat in comparison.caveats)


# --- a lone surrogate, through the CLI --------------------------------------------------------------


CUT = "cut\ud83d"
"""An id a JavaScript pipeline cut mid-emoji: half a UTF-16 pair, which JSON.stringify writes as "\\ud83d"."""


def golden(path: Path, cut_answer: str) -> Path:
    """Two examples: CUT answering `cut_answer`, and "whole" answering RETURNS (groundedness 1). json.dumps
    writes each lone surrogate as its escape, as JSON.stringify does."""
    rows = [{"id": example_id, "question": "How long do I have to return an item?",
             "contexts": [{"id": "doc-1", "text": RETURNS}], "answer": answer, "relevant_ids": ["doc-1"]}
            for example_id, answer in ((CUT, cut_answer), ("whole", RETURNS))]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def strict(path: Path) -> dict[str, Any]:
    """The report as a strict reader takes it (jq 1.6, serde_json): UTF-8, and no lone surrogate anywhere,
    which encoding every string of it back to UTF-8 would raise on."""
    doc: dict[str, Any] = json.loads(path.read_bytes().decode("utf-8"))
    json.dumps(doc, ensure_ascii=False).encode("utf-8")
    return doc


@pytest.fixture
def replay(monkeypatch: pytest.MonkeyPatch) -> Callable[..., int]:
    """`ragmon replay ARGS --quiet` through the CLI, its settings from the command line only."""
    for name in [name for name in os.environ if name.startswith("RAGMON_") or name == "GITHUB_STEP_SUMMARY"]:
        monkeypatch.delenv(name)
    return lambda *args: main(["replay", *map(str, args), "--quiet"])


@pytest.mark.parametrize("old_way", [False, True], ids=["written-now", "written-with-the-escape"])
def test_a_lone_surrogate_is_the_same_example_and_sentence_in_the_next_run(
        tmp_path: Path, replay: Callable[..., int], old_way: bool) -> None:
    # CUT's answer: RETURNS (supported) and "Moon \ud83d cheese." (no term of doc-1: unsupported), so
    # groundedness 1/2; "whole" 1. The report holds U+FFFD for the surrogate; an older ragmon wrote the
    # "\ud83d" escape back (old_way), which json reads as the lone surrogate itself.
    moon = "Moon \ud83d cheese."
    data = golden(tmp_path / "golden.jsonl", f"{RETURNS} {moon}")
    assert replay(data, "--json", tmp_path / "main.json") == 0
    written = strict(tmp_path / "main.json")
    assert [r["id"] for r in written["results"]] == ["cut\ufffd", "whole"]
    baseline = tmp_path / "main.json"
    if old_way:
        baseline = tmp_path / "old.json"
        baseline.write_text((tmp_path / "main.json").read_text(encoding="utf-8").replace("\ufffd", "\\ud83d"),
                            encoding="utf-8")
        assert json.loads(baseline.read_text(encoding="utf-8"))["results"][0]["id"] == CUT

    # The same answers again: both examples shared, nothing new, gone or regressed; groundedness
    # (1/2 + 1) / 2 = 0.75 in both runs.
    assert replay(data, "--baseline", baseline, "--max-drop", "groundedness=0",
                  "--json", tmp_path / "same.json") == 0
    same = strict(tmp_path / "same.json")["baseline"]
    assert (same["shared"], same["new"], same["gone"], same["gone_ids"]) == (2, 0, 0, [])
    assert same["regressed"] == []
    assert same["metrics"]["groundedness"] == {"baseline": 0.75, "candidate": 0.75, "delta": 0.0, "n": 2,
                                               "n_baseline_only": 0, "n_candidate_only": 0,
                                               "n_baseline_abstained": 0}

    # A real change to CUT: RETURNS gone, a second unsupported sentence added, so 1/2 -> 0 and the mean
    # over both 0.75 -> 0.5, a drop of 0.25 > 0.1 (exit 1). Only "Stars" is newly unsupported: "Moon" was
    # unsupported in the baseline too.
    golden(tmp_path / "changed.jsonl", f"{moon} Stars \ud83d sing.")
    assert replay(tmp_path / "changed.jsonl", "--baseline", baseline, "--max-drop", "groundedness=0.1",
                  "--json", tmp_path / "changed.json") == 1
    changed = strict(tmp_path / "changed.json")["baseline"]
    assert (changed["shared"], changed["new"], changed["gone"]) == (2, 0, 0)
    assert [(r["id"], r["before"], r["after"], [c["text"] for c in r["newly_unsupported"]])
            for r in changed["regressed"]] == [("cut\ufffd", 0.5, 0.0, ["Stars \ufffd sing."])]


# --- a baseline that did not pass, or asked other questions -------------------------------------------


def test_a_baseline_whose_run_breached_a_drop_gate_is_refused(
        tmp_path: Path, replay: Callable[..., int], capsys: pytest.CaptureFixture[str]) -> None:
    # A baseline that moves with each run (--json naming the --baseline). main: both examples grounded,
    # groundedness 1. The candidate adds an unsupported sentence to CUT's answer: (1/2 + 1) / 2 = 0.75, a
    # drop of 0.25 > 0.1, exit 1; and its report takes the baseline's place. The same job re-run compared
    # the candidate with itself, "unchanged", and passed: now the failed run's report is refused.
    base = tmp_path / "main.json"
    assert replay(golden(tmp_path / "main.jsonl", RETURNS), "--json", base) == 0
    candidate = golden(tmp_path / "candidate.jsonl", f"{RETURNS} {INVENTED}")
    rerun = (candidate, "--gate", "groundedness=0.5", "--baseline", base, "--max-drop", "groundedness=0.1",
             "--json", base)
    assert replay(*rerun) == 1
    capsys.readouterr()
    assert replay(*rerun) == 2
    assert capsys.readouterr().err == (
        f"ragmon replay: error: {base}: the baseline run breached its drop gate on groundedness: its figures "
        f"hold the regression that gate refused, and compared with them it would pass; give as --baseline "
        f"the --json report of the last run that passed\n")


def test_a_baseline_that_breached_only_its_own_gate_is_compared_with_a_caveat(
        tmp_path: Path, replay: Callable[..., int]) -> None:
    # main is below its bar, groundedness (1/2 + 1) / 2 = 0.75 < 0.9 (exit 1), yet it is what a change is
    # measured against: read, with its breached gate named; this run's --gate decides on its own.
    weak = golden(tmp_path / "main.jsonl", f"{RETURNS} {INVENTED}")
    main_json = tmp_path / "main.json"
    assert replay(weak, "--gate", "groundedness=0.9", "--gate", "recall=0.5", "--json", main_json) == 1
    baseline = load(main_json)
    assert baseline.breached == ("groundedness",)
    examples = [example(CUT, RETURNS), example("whole", RETURNS)]
    assert caveats(baseline, examples) == [
        f"the baseline {main_json} is of a run that breached its gate on groundedness: drops are measured "
        f"from figures that did not pass (this run's --gate gates are decided on their own)"]
    passed = as_baseline(scored(example("a", RETURNS)))
    assert passed.breached == () and caveats(passed, [example("a", RETURNS)]) == []


def asking(example_id: str, question: str) -> Example:
    return Example(example_id, question, (Context("doc-1", RETURNS),), RETURNS, frozenset({"doc-1"}))


def test_ids_that_name_other_questions_than_the_baselines_are_counted_and_one_is_named() -> None:
    # The golden set renumbered: of the ids both runs have (a, b, c), b and c now ask something else; a's
    # question differs only by its spaces, the same question. d is new. The comparison, by id, reads them
    # as the same examples: 2 of 3, b named first.
    baseline = as_baseline(scored(example("a", RETURNS), example("b", RETURNS), example("c", RETURNS),
                                  example("gone", RETURNS)))
    now = [asking("a", " How long do I have  to return\nan item? "), asking("b", "Is shipping free?"),
           asking("c", "Can I pay by card?"), asking("d", "Where is my order?")]
    assert caveats(baseline, now) == [
        "the baseline main.json asked another question under 2 of the 3 ids both runs have ('b', say): "
        "examples are compared by id, so these compare different questions (was the golden set renumbered?)"]
    assert caveats(baseline, [asking("a", "How long do I have to return an item?")]) == []


def test_a_baseline_without_questions_raises_no_caveat_about_them() -> None:
    doc = report_doc()
    del doc["results"][0]["question"]
    assert caveats(from_dict(doc, "main.json"), [asking("a", "Is shipping free?")]) == []


def test_ids_the_baseline_wrote_otherwise_are_named_not_only_counted_as_new_and_gone(
        tmp_path: Path, replay: Callable[..., int]) -> None:
    # main's golden set has "café" (é one character, NFC), "q1" and "whole". This run's was exported anew:
    # "café" with e + a combining accent (NFD, as macOS file names write it), "q1 " with a trailing space,
    # and "whole" as before. Only "whole" is shared; the other two count as 2 new and 2 gone, which the
    # caveat explains, naming the first pair escaped, as the two spellings of café look alike.
    def rows(*ids: str) -> Path:
        path = tmp_path / f"golden{len(list(tmp_path.iterdir()))}.jsonl"
        path.write_text("".join(json.dumps({"id": example_id, "question": example("x", None).question,
                                            "contexts": [{"id": "doc-1", "text": RETURNS}], "answer": RETURNS,
                                            "relevant_ids": ["doc-1"]}) + "\n" for example_id in ids),
                        encoding="utf-8")
        return path

    main_json = tmp_path / "main.json"
    assert replay(rows("caf\u00e9", "q1", "whole"), "--json", main_json) == 0
    assert replay(rows("cafe\u0301", "q1 ", "whole"), "--baseline", main_json, "--max-drop", "groundedness=0",
                  "--json", tmp_path / "now.json") == 0
    compared = json.loads((tmp_path / "now.json").read_text(encoding="utf-8"))["baseline"]
    assert (compared["shared"], compared["new"], compared["gone_ids"]) == (1, 2, ["caf\u00e9", "q1"])
    assert compared["caveats"] == [
        f"the baseline {main_json} has 2 of this run's ids written otherwise, in another Unicode "
        f"normalisation or with other white space around them ('cafe\\u0301' here, 'caf\\xe9' there, say): "
        f"examples are matched by id as written, so these are not compared, and count as new and gone (was "
        f"the golden set exported anew?)"]
    # An id merely new, or gone, is no other spelling of one: no caveat.
    assert caveats(load(main_json), [example("q2", RETURNS), example("whole", RETURNS)]) == []


def test_ids_of_200000_characters_are_quoted_clipped_in_the_caveats() -> None:
    # A baseline id of 200,000 characters, asked another question here, and one written here with a space
    # after it: each caveat quoted the id whole. The first is quoted as its first 59 characters and an
    # ellipsis; the other two by their first and last 30, where the space shows.
    long = "a" * 200_000
    doc = report_doc()
    doc["results"] = [dict(doc["results"][0], id=long), dict(doc["results"][0], id="b" * 200_000)]
    said = caveats(from_dict(doc, "main.json"), [asking(long, "Is shipping free?"),
                                                 asking("b" * 200_000 + " ", "How long?")])
    ends = "'" + "b" * 30 + "'...'"
    assert [len(line) < 600 for line in said] == [True, True]
    assert f"('{'a' * 59}…', say)" in said[0]
    assert f"({ends}{'b' * 29} ' here, {ends}{'b' * 30}' there, say)" in said[1]


class FailsOnB(LexicalJudge):
    """The lexical judge, but for example b, which it fails on as a network judge times out."""

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        if example.id == "b":
            raise JudgeError("judge 'lexical' timed out on example 'b'")
        return super().judge(example, claims)


def test_examples_the_baselines_run_skipped_are_named_not_only_counted_as_new(
        tmp_path: Path, replay: Callable[..., int]) -> None:
    # main's run skipped b (`--judge-errors skip`): its report lists b under `skipped`, not `results`. This
    # run scores a and b: a is shared, b counts as new, as if the golden set had grown, so a caveat says
    # why. Groundedness 1 in both runs on a: unchanged, exit 0.
    skipping = evaluate([example("a", RETURNS), example("b", RETURNS)], FailsOnB(), EvalConfig(k=5),
                        skip_judge_errors=True)
    main_json = tmp_path / "main.json"
    main_json.write_text(json_report.render(skipping, ()), encoding="utf-8")
    warning = (f"the baseline {main_json} skipped 1 of this run's examples ('b', say; its skipped list says "
               f"why): they are not compared, and count as new")
    rows = [{"id": example_id, "question": "How long do I have to return an item?",
             "contexts": [{"id": "doc-1", "text": RETURNS}], "answer": RETURNS, "relevant_ids": ["doc-1"]}
            for example_id in ("a", "b")]
    data = tmp_path / "golden.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert replay(data, "--baseline", main_json, "--max-drop", "groundedness=0", "--json",
                  tmp_path / "now.json") == 0
    compared = json.loads((tmp_path / "now.json").read_text(encoding="utf-8"))["baseline"]
    assert (compared["shared"], compared["new"], compared["caveats"]) == (1, 1, [warning])
    baseline = load(main_json)
    assert (list(baseline.examples), baseline.skipped) == (["a"], frozenset({"b"}))
    assert caveats(baseline, [example("a", RETURNS)]) == []


def test_a_report_without_a_skipped_list_skipped_nothing_and_a_broken_one_is_named() -> None:
    doc = report_doc()
    del doc["skipped"]  # a report before the list existed
    assert from_dict(doc, "main.json").skipped == frozenset()
    with pytest.raises(InputError, match=r"expected a string \(field 'skipped\[0\]\.id'\)"):
        from_dict(report_doc(skipped=[{"id": 7, "reason": "x"}]), "main.json")
