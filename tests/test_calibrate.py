"""`ragmon calibrate` on a small hand-labelled file, with figures worked out by hand below."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fakes.anthropic_server import Fail, FakeAnthropic, Hang, Reply, ToolInput, claims_of, documents_of
from ports import free_port

from ragmon import datasets
from ragmon.calibrate import Confusion, acalibrate, calibrate, labelled, load_labelled, match_claims
from ragmon.cli import main
from ragmon.evaluation import example_claims
from ragmon.judges.base import JudgeError
from ragmon.judges.claude import ClaudeJudge
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Claim, ClaimVerdict, Context, Example
from ragmon.progress import Progress


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as api:
        yield api


def verbatim(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A stand-in judge: a claim is supported when a document contains it word for word."""
    docs = documents_of(body)
    out = []
    for claim in claims_of(body):
        ids = [doc_id for doc_id, text in docs.items() if claim in text]
        out.append({"claim": claim, "supported": bool(ids), "supporting_ids": ids, "reason": "r"})
    return out


def record(id_: str, context: str, answer: str, hallucinated: bool, *unsupported: str) -> dict[str, Any]:
    """Spans: the last two characters of each sentence named unsupported (a partial overlap is enough)."""
    spans = []
    for sentence in unsupported:
        end = answer.index(sentence) + len(sentence)
        spans.append({"start": end - 2, "end": end})
    return {"id": id_, "question": "q", "contexts": [{"id": "d1", "text": context}], "answer": answer,
            "labels": {"hallucinated": hallucinated, "spans": spans}}


# Claims per example (split at sentence ends); gold = labelled unsupported; both judges (verbatim copies
# of the document are supported, sentences sharing no content word or number with it are not) predict:
#   A  "The Eiffel Tower is in Paris."        gold no   predicted supported      TN
#      "It opened in 1889."                   gold no   predicted supported      TN
#      "It is painted bright green."          gold YES  predicted unsupported    TP
#   B  "Mount Everest is 8849 metres tall."   gold no   predicted supported      TN
#      "Its summit was first reached in 1953." gold YES predicted unsupported    TP
#   C  "Water boils at 100 degrees Celsius at sea level."  gold no  supported    TN
#   D  "The Nile flows north into the Mediterranean Sea."  gold no  supported    TN
#      "Crocodiles swim in purple rivers."    gold no   predicted unsupported    FP
#   E  "The moon is made of green cheese."    gold YES  predicted supported      FN
# Sentence level: TP 2, FP 1, FN 1, TN 5 (9 claims). P = 2/3, R = 2/3, F1 = 2*2/(2*2+1+1) = 2/3,
# accuracy = (2+5)/9 = 7/9.
# Response level (any unsupported claim): A TP, B TP, C TN, D FP, E FN -> TP 2, FP 1, FN 1, TN 1:
# P = R = F1 = 2/3, accuracy = 3/5.
RECORDS = [
    record("A", "The Eiffel Tower is in Paris. It opened in 1889.",
           "The Eiffel Tower is in Paris. It opened in 1889. It is painted bright green.", True,
           "It is painted bright green."),
    record("B", "Mount Everest is 8849 metres tall.",
           "Mount Everest is 8849 metres tall. Its summit was first reached in 1953.", True,
           "Its summit was first reached in 1953."),
    record("C", "Water boils at 100 degrees Celsius at sea level.",
           "Water boils at 100 degrees Celsius at sea level.", False),
    record("D", "The Nile flows north into the Mediterranean Sea.",
           "The Nile flows north into the Mediterranean Sea. Crocodiles swim in purple rivers.", False),
    record("E", "A fable: The moon is made of green cheese.", "The moon is made of green cheese.", True,
           "The moon is made of green cheese."),
]

THIRDS = {"precision": pytest.approx(2 / 3), "recall": pytest.approx(2 / 3), "f1": pytest.approx(2 / 3)}
SENTENCE = {"tp": 2, "fp": 1, "fn": 1, "tn": 5, **THIRDS, "accuracy": pytest.approx(7 / 9)}
RESPONSE = {"tp": 2, "fp": 1, "fn": 1, "tn": 1, **THIRDS, "accuracy": pytest.approx(3 / 5)}
LEXICAL = r"lexical \(threshold 0\.56\)"
"""The lexical judge as the agreement table names it, at its default threshold."""


def write_dataset(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_match_claims_counts_any_overlap() -> None:
    answer = "One two. Three four."
    claims = [Claim("One two.", 0, 8), Claim("Three four.", 9, 20)]
    assert match_claims(answer, claims, [(6, 8)]) == [True, False]  # the tail of the first claim
    assert match_claims(answer, claims, [(8, 9)]) == [False, False]  # only the space between them
    assert match_claims(answer, claims, [(7, 10)]) == [True, True]  # straddles both
    assert match_claims(answer, claims, [(20, 25), (3, 3)]) == [False, False]  # after the end; empty
    assert match_claims(answer, claims, [(3, 5)]) == [True, False]  # wholly before the second claim
    assert match_claims(answer, claims, []) == [False, False]
    # A span over whitespace only marks no word: the space inside "One two." labels nothing, while a
    # span holding the "e" before it does.
    assert match_claims(answer, claims, [(3, 4)]) == [False, False]
    assert match_claims(answer, claims, [(2, 4)]) == [True, False]
    # A span over both claims' edges with only whitespace between: each claim overlaps by a word char.
    assert match_claims(answer, claims, [(7, 10)]) == [True, True]


def test_a_span_over_a_claims_citation_labels_that_claim() -> None:
    # The claim is judged as "Refunds take 30 days." (its citation of doc-1 read out), 21 characters, but it
    # marks "Refunds take 30 days (doc-1)." in the answer, 0 to 29: the span over its last two characters,
    # ")." (27 to 29), marks it, and the warning that it does so by punctuation alone quotes them.
    answer = "Refunds take 30 days (doc-1). Exchanges are free."
    data = record("E", "Refunds take 14 days.", answer, True, "(doc-1).")
    data["contexts"][0]["id"] = "doc-1"
    item = labelled(load_example(data), "mem")
    assert [(c.text, c.start, c.end) for c in item.claims] == [("Refunds take 30 days.", 0, 29),
                                                               ("Exchanges are free.", 30, 49)]
    assert item.unsupported == (True, False)
    assert item.warnings == ('example \'E\': labels.spans[0] marks the claim "Refunds take 30 days." by ")." '
                             "alone, and it counts as labelled unsupported",)


def test_confusion_figures() -> None:
    c = Confusion.of([True, True, False, False, True], [True, False, True, False, True])
    assert (c.tp, c.fp, c.fn, c.tn) == (2, 1, 1, 1)
    assert Confusion().precision is None and Confusion().f1 is None and Confusion().accuracy is None


def test_confusion_without_positives_is_undefined_not_zero() -> None:
    # No positive predicted nor labelled: precision 0/0, recall 0/0, F1 0/0 undefined; accuracy 3/3.
    none = Confusion.of([False] * 3, [False] * 3)
    assert (none.precision, none.recall, none.f1, none.accuracy) == (None, None, None, 1.0)
    # One false alarm, nothing labelled: precision 0/1 = 0, recall 0/0 undefined, F1 = 2*0/(0+1+0) = 0,
    # accuracy 1/2.
    alarm = Confusion.of([True, False], [False, False])
    assert (alarm.precision, alarm.recall, alarm.f1, alarm.accuracy) == (0.0, None, 0.0, 0.5)
    # One miss, nothing predicted: precision 0/0 undefined, recall 0/1 = 0, F1 = 0/(0+0+1) = 0.
    miss = Confusion.of([False, False], [True, False])
    assert (miss.precision, miss.recall, miss.f1) == (None, 0.0, 0.0)


class FirstClaimOnly:
    """A judge that answers for the first claim only: every later label would meet the wrong verdict."""

    name = "first-only"

    def settings(self) -> dict[str, Any]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return tuple(ClaimVerdict(c, True) for c in claims[:1])


def test_verdicts_must_be_one_per_claim() -> None:
    # A has 3 claims, C one: A's reply is short by 2. Unchecked, the flat lists would still pair up
    # if another reply were 2 too long, comparing labels with other claims' verdicts.
    items = [labelled(load_example(RECORDS[0]), "mem"), labelled(load_example(RECORDS[2]), "mem")]
    with pytest.raises(JudgeError, match="1 verdicts for 3 claims of example 'A'"):
        calibrate(FirstClaimOnly(), items)
    result = calibrate(FirstClaimOnly(), items, skip_errors=True)
    assert [i for i, _ in result.skipped] == ["A"] and result.examples == 1
    # Only C was scored: its one claim predicted supported, labelled supported -> TN 1.
    assert (result.sentence.tp, result.sentence.fp, result.sentence.fn, result.sentence.tn) == (0, 0, 0, 1)


class GeneratorOfStrayIds:
    """Returns a generator (spent by the first look) whose every verdict names an id never retrieved."""

    name = "stray"

    def settings(self) -> dict[str, Any]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> Any:
        return (ClaimVerdict(c, True, ("not-retrieved",)) for c in claims)


def test_a_judges_verdicts_are_scored_as_checked() -> None:
    # C's one claim is labelled supported. "Supported" by an id never retrieved is support by nothing, so
    # the verdict becomes unsupported: a false alarm (FP 1), not a TN, and not a lost generator (n 0).
    items = [labelled(load_example(RECORDS[2]), "mem")]
    result = calibrate(GeneratorOfStrayIds(), items)
    assert result.examples == 1
    assert (result.sentence.tp, result.sentence.fp, result.sentence.fn, result.sentence.tn) == (0, 1, 0, 0)


def load_example(record_: dict[str, Any]) -> Example:
    raw = dict(record_)
    labels = raw.pop("labels")
    contexts = tuple(Context(c["id"], c["text"]) for c in raw.pop("contexts"))
    return Example(**raw, contexts=contexts, extra={"labels": labels})


def test_calibrate_both_judges(fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "lexical", "--judge", "claude", "--json", str(out)]) == 0

    figures = json.loads(out.read_text())
    assert (figures["examples"], figures["claims"], figures["labelled_unsupported"]) == (5, 9, 3)
    assert figures["hallucinated"] == 3
    lexical, claude = figures["judges"]
    for judge in (lexical, claude):
        assert judge["sentence"] == SENTENCE and judge["response"] == RESPONSE
        assert judge["examples"] == 5 and judge["skipped"] == []
    assert claude["settings"]["model"] == "claude-haiku-4-5"
    # One call per example, each billed 1,000 in + 100 out at $1/$5 per million = $0.0015.
    assert fake_api.calls == 5
    assert (claude["input_tokens_per_example"], claude["output_tokens_per_example"]) == (1_000, 100)
    assert claude["cost_usd_per_example"] == pytest.approx(0.0015)
    assert lexical["cost_usd_per_example"] is None and lexical["latency_seconds_per_example"] > 0
    assert claude["examples_with_unknown_bills"] == 0

    table = capsys.readouterr().out
    assert re.search(r"claude\s+sentence\s+9\s+0\.667\s+0\.667\s+0\.667\s+0\.778\s+2\s+1\s+1\s+5", table)
    assert re.search(rf"{LEXICAL}\s+response\s+5\s+0\.667\s+0\.667\s+0\.667\s+0\.600", table)
    assert "$0.001500" in table
    # Both measured all 5 examples: their figures compare as they are, with no second table.
    assert figures["common"] is None and "warning" not in table


def test_the_table_names_the_threshold_the_lexical_judge_measured_at(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two runs' tables in a CI log: each row says its threshold, two decimals as --lexical-threshold is
    usually given, more when two would round it. Every RECORDS claim shares all or none of its content
    terms with its document, so both thresholds give the figures worked out above (sentence 2/3, 7/9)."""
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    row = r"\s+sentence\s+9\s+0\.667\s+0\.667\s+0\.667\s+0\.778\s+2\s+1\s+1\s+5\n"
    for flags, shown in (([], "0.56"), (["--lexical-threshold", "0.6"], "0.60"),
                         (["--lexical-threshold", "0.555"], "0.555")):
        assert main(["calibrate", str(data), *flags]) == 0
        table = capsys.readouterr().out
        assert re.search(rf"\nlexical \(threshold {re.escape(shown)}\){row}", table), table


def test_an_attempt_whose_bill_is_unknown_makes_the_cost_a_lower_bound(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """calibrate sizes a budget: its first attempt timed out (the API may have run and billed it), its retry
    billed 1,000 in + 100 out ($0.0015 at $1/$5 per million). Reading $0.0015 as the cost would size the
    budget short, so the figures say they are a floor."""
    claude_env(monkeypatch, fake_api)
    fake_api.enqueue(Hang(30))
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:1])
    out = tmp_path / "cal.json"
    argv = ["calibrate", str(data), "--judge", "claude", "--llm-timeout", "0.5s", "--json", str(out)]
    assert main(argv) == 0
    (claude,) = json.loads(out.read_text())["judges"]
    assert fake_api.calls == 2 and claude["examples_with_unknown_bills"] == 1
    assert claude["cost_usd_per_example"] == pytest.approx(0.0015)
    table = capsys.readouterr().out
    assert ">= 1,000 / 100" in table and ">= $0.001500" in table
    assert "claude: 1 example had a call whose bill was never reported" in table


def test_judge_errors_stop_the_run_or_are_skipped(fake_api: FakeAnthropic, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_api.url)
    fake_api.default = Reply(decide=verbatim)
    fake_api.enqueue(Fail(400, "invalid_request_error"))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:1])
    assert main(["calibrate", str(data), "--judge", "claude"]) == 2
    assert "example 'A'" in capsys.readouterr().err

    fake_api.enqueue(Fail(400, "invalid_request_error"))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--judge-errors", "skip",
                 "--llm-concurrency", "1", "--json", str(out)]) == 0
    (claude,) = json.loads(out.read_text())["judges"]
    assert claude["examples"] == 1 and [s["id"] for s in claude["skipped"]] == ["A"]
    # Only B was judged: its 2 claims, 1 TP and 1 TN.
    assert (claude["sentence"]["tp"], claude["sentence"]["tn"], claude["sentence"]["fp"]) == (1, 1, 0)


def one_verdict_short_for_b(body: dict[str, Any]) -> list[dict[str, Any]]:
    """`verbatim`, but one verdict too few for example B's two claims: a reply the judge refuses."""
    verdicts = verbatim(body)
    return verdicts[:-1] if "Its summit was first reached in 1953." in claims_of(body) else verdicts


def test_judges_that_skipped_different_examples_are_also_compared_on_those_all_measured(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Claude's reply for B holds one verdict for its two claims, so Claude skips B and lexical does not.
    Lexical on all 5 has the figures of the table above RECORDS (sentence F1 2/3); Claude on A, C, D, E
    (B's TN and TP gone): sentence TP 1 (A3), FP 1 (D2), FN 1 (E), TN 4 (A1, A2, C, D1): P = R = F1 = 1/2,
    accuracy 5/7; response A TP, C TN, D FP, E FN: 1/1/1/1, P = R = F1 = accuracy = 1/2. The F1s differ
    (0.667 against 0.500) only because the examples do: on A, C, D, E lexical predicts as Claude does,
    so its figures there are Claude's."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=one_verdict_short_for_b)
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "lexical", "--judge", "claude", "--judge-errors", "skip",
                 "--json", str(out)]) == 0
    table = capsys.readouterr().out
    first, _, rest = table.partition("\nwarning: ")
    half = r"\s+0\.500" * 3
    assert re.search(rf"{LEXICAL}\s+sentence\s+9\s+0\.667\s+0\.667\s+0\.667\s+0\.778\s+2\s+1\s+1\s+5", first)
    assert re.search(rf"claude\s+sentence\s+7{half}\s+0\.714\s+1\s+1\s+1\s+4", first)
    assert rest.startswith("the judges were measured on different examples (lexical 5, claude 4; a skipped "
                           "example is left out of that judge's figures only), so the figures above compare "
                           "different answers; on the 4 examples every judge measured:\n")
    for judge in (LEXICAL, "claude"):
        assert re.search(rf"{judge}\s+sentence\s+7{half}\s+0\.714\s+1\s+1\s+1\s+4\n", rest)
        assert re.search(rf"{judge}\s+response\s+4{half}\s+0\.500\s+1\s+1\s+1\s+1\n", rest)
    assert "skipped B (claude): example 'B': Claude judge: 1 verdicts for 2 claims" in rest

    common = json.loads(out.read_text())["common"]
    halves = {"precision": 0.5, "recall": 0.5, "f1": 0.5}
    sentence = {"tp": 1, "fp": 1, "fn": 1, "tn": 4, **halves, "accuracy": pytest.approx(5 / 7)}
    response = {"tp": 1, "fp": 1, "fn": 1, "tn": 1, **halves, "accuracy": 0.5}
    assert common == {"examples": 4, "judges": [
        {"judge": "lexical", "sentence": sentence, "response": response},
        {"judge": "claude", "sentence": sentence, "response": response}]}


def test_labels_likelier_meant_otherwise_are_warned_of_and_count_as_documented(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """P's span holds only the "." ending its first sentence (characters 28-29), which marks that claim;
    Q's covers "I don't know." (0-13), an abstention and no claim, so only Q's response label counts;
    R is labelled not hallucinated, with its second sentence marked unsupported. Counted as before:
    claims P 2, Q 1 (the boiling point), R 2 = 5; labelled unsupported P's first and R's second = 2;
    hallucinated P and Q = 2. Each is warned of, naming the example and the span."""
    paris = "The Eiffel Tower is in Paris. It opened in 1889."
    boils = "Water boils at 100 degrees Celsius at sea level."
    tall = "Mount Everest is 8849 metres tall. Its summit was first reached in 1953."
    p = {"id": "P", "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": paris,
         "labels": {"hallucinated": True, "spans": [{"start": 28, "end": 29}]}}
    q = {"id": "Q", "question": "q", "contexts": [{"id": "d1", "text": boils}],
         "answer": f"I don't know. {boils}",
         "labels": {"hallucinated": True, "spans": [{"start": 0, "end": 13}]}}
    r = record("R", tall, tall, False, "Its summit was first reached in 1953.")
    data = write_dataset(tmp_path / "labelled.jsonl", [p, q, r])
    assert main(["calibrate", str(data)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 labelled examples: 5 claims, 2 labelled unsupported; 2 responses labelled "
                          "hallucinated\n")
    assert out.endswith(
        "warning: example 'P': labels.spans[0] marks the claim \"The Eiffel Tower is in Paris.\" by \".\" "
        "alone, and it counts as labelled unsupported\n"
        "warning: example 'Q': labels.spans[0] marks \"I don't know.\", which is no claim (ragmon does not "
        "check it), so it counts at response level only\n"
        "warning: example 'R': labels.hallucinated is false, yet labels.spans mark 1 of its 2 claims "
        "unsupported: the response figures count it as not hallucinated\n")

    # Twelve such examples: ten warnings, and a count of the other two.
    data = write_dataset(tmp_path / "many.jsonl", [{**r, "id": f"R{i}"} for i in range(12)])
    assert main(["calibrate", str(data)]) == 0
    out = capsys.readouterr().out
    assert out.count("warning: example 'R") == 10 and "example 'R9'" in out and "example 'R10'" not in out
    assert out.endswith("unsupported: the response figures count it as not hallucinated\n"
                        "and 2 more label warnings\n")


def test_a_span_on_white_space_or_nothing_is_warned_of(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    # Spans between two sentences (the space at 29-30) and of no length (31-31) labelled nothing, said
    # nothing, and moved the figures: the labeller likelier meant a sentence beside them.
    paris = "The Eiffel Tower is in Paris. It opened in 1889."
    item = {"id": "P", "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": paris,
            "labels": {"hallucinated": True, "spans": [{"start": 29, "end": 30}, {"start": 31, "end": 31}]}}
    assert main(["calibrate", str(write_dataset(tmp_path / "labelled.jsonl", [item]))]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "warning: example 'P': labels.spans[0] (29-30) marks white space alone, so it labels no sentence and "
        "counts at response level only\n"
        "warning: example 'P': labels.spans[1] (31-31) marks nothing, so it labels no sentence and counts at "
        "response level only\n")


def test_a_response_labelled_hallucinated_with_no_span_is_warned_of(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Labels per response only (`hallucinated: true`, no spans), as many published sets have: every
    sentence counted as labelled supported, so a judge flagging the made-up one scores a false alarm, and
    nothing said so. S has 2 claims, T one; U's answer abstains, no claim, so no sentence figure is moved
    and it is not warned of. Both of S's claims are in its document: the lexical judge finds them
    supported, 2 TN; T's is not: 1 FP. Claims 3, labelled unsupported 0, hallucinated 3."""
    paris = "The Eiffel Tower is in Paris. It opened in 1889."
    s = {"id": "S", "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": paris,
         "labels": {"hallucinated": True, "spans": []}}
    t = {"id": "T", "question": "q", "contexts": [{"id": "d1", "text": paris}],
         "answer": "Crocodiles swim in purple rivers.", "labels": {"hallucinated": True}}
    u = {"id": "U", "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": "I don't know.",
         "labels": {"hallucinated": True, "spans": []}}
    data = write_dataset(tmp_path / "labelled.jsonl", [s, t, u])
    report = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 labelled examples: 3 claims, 0 labelled unsupported; 3 responses labelled "
                          "hallucinated\n")
    assert out.endswith(
        "warning: example 'S': labels.hallucinated is true, yet labels.spans mark no claim unsupported: the "
        "sentence figures count all 2 of its claims as supported\n"
        "warning: example 'T': labels.hallucinated is true, yet labels.spans mark no claim unsupported: the "
        "sentence figures count its one claim as supported\n"
        "lexical: 1 of 3 examples needing no judge (no claim, or nothing retrieved), left out of the figures "
        "per example (over the other 2)\n")
    (judge,) = json.loads(report.read_text())["judges"]
    assert judge["sentence"] == {"tp": 0, "fp": 1, "fn": 0, "tn": 2, "precision": 0.0, "recall": None,
                                 "f1": 0.0, "accuracy": pytest.approx(2 / 3)}


BAD_LABELS = {
    "no labels": ({}, "labels"),
    "labels not an object": ({"labels": "yes"}, "labels"),
    "hallucinated not a bool": ({"labels": {"hallucinated": "yes", "spans": []}}, "labels.hallucinated"),
    "span past the answer": ({"labels": {"hallucinated": True, "spans": [{"start": 0, "end": 999}]}},
                             "labels.spans[0].end"),
    "span backwards": ({"labels": {"hallucinated": True, "spans": [{"start": 5, "end": 2}]}},
                       "labels.spans[0]"),
    # "span" for "spans": read as absent, every span was dropped, and the sentences people marked counted
    # as supported without a word.
    "spans misspelled": ({"labels": {"hallucinated": True, "span": [{"start": 0, "end": 5}]}}, "labels.span"),
    # Contexts unknown: a judge has nothing to check the claims against, so no verdict can be compared.
    "contexts unknown": ({"contexts": None, "labels": {"hallucinated": False, "spans": []}}, "contexts"),
}


@pytest.mark.parametrize(("change", "field"), BAD_LABELS.values(), ids=BAD_LABELS.keys())
def test_bad_labels_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any],
                              field: str) -> None:
    good = {k: v for k, v in RECORDS[2].items() if k != "labels"}
    data = write_dataset(tmp_path / "bad.jsonl", [RECORDS[0], {**good, **change}])
    assert main(["calibrate", str(data)]) == 2
    err = capsys.readouterr().err
    assert f"{data}:2: example 'C': " in err and f"(field '{field}')" in err


# C's answer, "Water boils at 100 degrees Celsius at sea level.", is 48 characters.
BAD_SPANS = {
    "end past the answer": ({"start": 0, "end": 500}, "end 500 is past the answer's 48 characters (offsets "
                            "count characters, code points: an emoji is one) (field 'labels.spans[0].end')"),
    "backwards": ({"start": 9, "end": 5}, "start 9 is after end 5 (field 'labels.spans[0]')"),
    "negative": ({"start": -1, "end": 5}, "start must be a whole number of characters from 0, got -1 "
                 "(field 'labels.spans[0].start')"),
    "a float": ({"start": 0, "end": 5.0}, "end must be a whole number of characters from 0, got 5.0 "
                "(field 'labels.spans[0].end')"),
    "a string": ({"start": "0", "end": 5}, "start must be a whole number of characters from 0, got a string "
                 "(field 'labels.spans[0].start')"),
    "missing": ({"end": 5}, "start must be a whole number of characters from 0, got nothing (missing or "
                "null) (field 'labels.spans[0].start')"),
    "a list": ([0, 5], "must be an object {start, end}, got a list (field 'labels.spans[0]')"),
    # The text's field is named, as the offsets' are: the span's had been.
    "text not a string": ({"start": 0, "end": 5, "text": 21}, "text must be the string the span marks, got "
                          "a number (field 'labels.spans[0].text')"),
    # Past the end with a text no unit explains (a label made on a longer answer): the characters had been
    # quoted as "", text that is not there.
    "past the end with its text": ({"start": 50, "end": 60, "text": "Parking is"}, "end 60 is past the "
                                   "answer's 48 characters (offsets count characters, code points: an emoji "
                                   "is one) (field 'labels.spans[0].end')"),
}


@pytest.mark.parametrize(("span", "why"), BAD_SPANS.values(), ids=BAD_SPANS.keys())
def test_a_bad_span_says_what_it_holds(tmp_path: Path, capsys: pytest.CaptureFixture[str], span: Any,
                                       why: str) -> None:
    # Each said "needs integer start <= end within the answer's 48 characters" of the whole span: in a file
    # of thousands of spans, which offset was wrong, and how, had to be found by hand.
    data = write_dataset(tmp_path / "bad.jsonl",
                         [{**RECORDS[2], "labels": {"hallucinated": True, "spans": [span]}}])
    assert main(["calibrate", str(data)]) == 2
    assert capsys.readouterr().err == f"ragmon calibrate: error: {data}:1: example 'C': {why}\n"


def test_the_json_report_keeps_every_label_warning_that_quiet_does_not_print(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # `--json /dev/stdout --quiet | jq`, as --help advises, lost them all: the report had no such field.
    # R (`record`) is labelled not hallucinated with its second claim marked unsupported: one warning each;
    # twelve of them, more than the terminal shows.
    r = record("R", "Mount Everest is 8849 metres tall.",
               "Mount Everest is 8849 metres tall. Its summit was first reached in 1953.", False,
               "Its summit was first reached in 1953.")
    data = write_dataset(tmp_path / "many.jsonl", [{**r, "id": f"R{i}"} for i in range(12)])
    report = tmp_path / "report.json"
    assert main(["calibrate", str(data), "--quiet", "--json", str(report)]) == 0
    assert capsys.readouterr() == ("", "")
    assert json.loads(report.read_text())["label_warnings"] == [
        f"example 'R{i}': labels.hallucinated is false, yet labels.spans mark 1 of its 2 claims unsupported: "
        "the response figures count it as not hallucinated" for i in range(12)]


def test_a_bad_label_and_a_duplicate_id_name_their_line_as_every_dataset_error_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # They named the file alone: in a file of a thousand examples, the id had to be searched for.
    unlabelled = {k: v for k, v in RECORDS[2].items() if k != "labels"}
    jsonl = tmp_path / "bad.jsonl"  # a blank line before: C's record is on line 3
    jsonl.write_text(f"{json.dumps(RECORDS[0])}\n\n{json.dumps(unlabelled)}\n", encoding="utf-8")
    array = tmp_path / "bad.json"  # "[" on line 1, A on line 2, C on line 3
    array.write_text(f"[\n{json.dumps(RECORDS[0])},\n{json.dumps(unlabelled)}\n]\n", encoding="utf-8")
    for data, line in ((jsonl, 3), (array, 3)):
        assert main(["calibrate", str(data)]) == 2
        assert capsys.readouterr().err == (f"ragmon calibrate: error: {data}:{line}: example 'C': no labels "
                                           "object (calibration needs human labels on every example) (field "
                                           "'labels')\n")
    first = write_dataset(tmp_path / "a.jsonl", RECORDS[:2])
    second = write_dataset(tmp_path / "b.jsonl", RECORDS[1:2])  # B again, on its line 1
    assert main(["calibrate", str(first), str(second)]) == 2
    assert capsys.readouterr().err == (f"ragmon calibrate: error: {second}:1: duplicate example id 'B' "
                                       f"(first at {first}:2) (field 'id')\n")


def claude_env(monkeypatch: pytest.MonkeyPatch, api: FakeAnthropic) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)


# F retrieved nothing: its one claim is unsupported without asking any judge (a false alarm, FP: the
# label says it is fine), so it is measured even for a judge that fails on everything it is asked.
NOTHING_RETRIEVED = {"id": "F", "question": "q", "contexts": [], "answer": "Nothing was found.",
                     "labels": {"hallucinated": False, "spans": []}}


def test_a_judge_that_failed_on_every_example_it_judged_exits_2(fake_api: FakeAnthropic, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    claude_env(monkeypatch, fake_api)
    fake_api.default = Fail(500, "api_error", {"retry-after-ms": "1"})
    data = write_dataset(tmp_path / "labelled.jsonl", [*RECORDS[:3], NOTHING_RETRIEVED])
    out = tmp_path / "cal.json"
    code = main(["calibrate", str(data), "--judge", "lexical", "--judge", "claude", "--judge-errors", "skip",
                 "--json", str(out)])
    captured = capsys.readouterr()
    assert code == 2
    # A, B and C needed a judge (F did not); each failed after the first attempt and 2 retries: 9 calls.
    assert fake_api.calls == 9
    assert captured.err == ("ragmon calibrate: error: the claude judge failed on all 3 examples it had to "
                            "judge, so it has no figures, not even on the 1 example needing no judge (the "
                            "skipped examples are listed, each with its reason)\n")
    # What was measured is still printed and written. Lexical, by hand from the table above plus F:
    # sentence TP 2 (A3, B2), FP 1 (F), FN 0, TN 4 (A1, A2, B1, C1): P 2/3, R 1, F1 4/5, accuracy 6/7.
    lexical_row = rf"{LEXICAL}\s+sentence\s+7\s+0\.667\s+1\.000\s+0\.800\s+0\.857\s+2\s+1\s+0\s+4"
    assert re.search(lexical_row, captured.out)
    # Claude judged nothing: F's verdict, which no judge gave, is not its own (it had been: one FP), so both
    # rows are empty, and there are no examples both judges measured to compare them on.
    for level in ("sentence", "response"):
        assert re.search(rf"claude\s+{level}\s+0\s+-\s+-\s+-\s+-\s+0\s+0\s+0\s+0\n", captured.out)
    assert re.search(r"claude\s+0\s+3\s", captured.out)  # examples 0, skipped 3
    assert "warning" not in captured.out
    lexical, claude = json.loads(out.read_text())["judges"]
    assert [s["id"] for s in claude["skipped"]] == ["A", "B", "C"] and lexical["skipped"] == []


def test_the_table_names_the_first_ten_examples_a_judge_skipped_and_counts_the_rest(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: a line per skipped example, every one, so an API outage during 1,000 examples printed 1,000
    # lines after the table, which scrolled out of sight; label warnings were already cut at ten, and
    # replay's summary names the first few skipped. The JSON report still lists every one.
    claude_env(monkeypatch, fake_api)
    fake_api.default = Fail(400, "invalid_request_error")
    data = write_dataset(tmp_path / "labelled.jsonl", [{**RECORDS[2], "id": f"C{i}"} for i in range(12)])
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--judge-errors", "skip",
                 "--llm-price-input", "1", "--llm-price-output", "5", "--json", str(out)]) == 2
    printed = capsys.readouterr().out.splitlines()
    skipped = [line for line in printed if line.startswith("skipped ")]
    assert [line.split(" (claude)")[0] for line in skipped] == [f"skipped C{i}" for i in range(10)]
    assert printed[printed.index(skipped[-1]) + 1] == "and 2 more examples skipped by claude"
    (claude,) = json.loads(out.read_text())["judges"]
    assert [s["id"] for s in claude["skipped"]] == [f"C{i}" for i in range(12)]


EMPTY = {"tp": 0, "fp": 0, "fn": 0, "tn": 0, "precision": None, "recall": None, "f1": None, "accuracy": None}
"""The figures of a judge that measured no example."""


def test_a_judge_that_failed_on_every_call_has_no_figures_and_the_report_says_the_run_is_incomplete(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A tester's file: every sentence of e1, e2 and e3 is copied from the one document; e4 makes no claim;
    e5 retrieved nothing. Claude fails on e1, e2 and e3 (3 attempts each: 9 calls); e4 and e5 need no
    judge. It used to print F1 1.000 for Claude from those two alone (e5's claim unsupported without a
    call, a TP; e4 a TN), say "2 of 2 examples needing no judge: no call was made" after 9 calls, and
    write a report saying nothing of the failure.
    Lexical supports every copied sentence and, with nothing retrieved, not e5's (no judge asked):
    sentence TP 1 (e5), FP 0, FN 2 (e1's and e2's second sentence), TN 3 (their first, e3): P 1/1, R 1/3,
    F1 2/(2+0+2) = 0.5, accuracy 4/6; response (any claim unsupported) TP e5, FN e1 e2, TN e3 e4: P 1,
    R 1/3, F1 0.5, accuracy 3/5."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = Fail(500, "api_error", {"retry-after-ms": "1"})
    document = "Alpha OK. Gamma OK. Delta OK. Zeta OK. Beta bad. Eps bad."
    data = write_dataset(tmp_path / "tiny.jsonl", [
        record("e1", document, "Alpha OK. Beta bad.", True, "Beta bad."),
        record("e2", document, "Gamma OK. Delta OK.", True, "Delta OK."),
        record("e3", document, "Eps bad.", False),
        record("e4", document, "", False),
        {**record("e5", document, "Zeta OK.", True, "Zeta OK."), "contexts": []}])
    out = tmp_path / "c6.json"
    code = main(["calibrate", str(data), "--judge", "lexical", "--judge", "claude", "--judge-errors", "skip",
                 "--json", str(out)])
    captured = capsys.readouterr()
    why = ("the claude judge failed on all 3 examples it had to judge, so it has no figures, not even on the "
           "2 examples needing no judge (the skipped examples are listed, each with its reason)")
    assert (code, captured.err, fake_api.calls) == (2, f"ragmon calibrate: error: {why}\n", 9)
    figures = r"\s+1\.000\s+0\.333\s+0\.500"
    assert re.search(rf"{LEXICAL}\s+sentence\s+6{figures}\s+0\.667\s+1\s+0\s+2\s+3\n", captured.out)
    assert re.search(rf"{LEXICAL}\s+response\s+5{figures}\s+0\.600\s+1\s+0\s+2\s+2\n", captured.out)
    for level in ("sentence", "response"):
        assert re.search(rf"claude\s+{level}\s+0\s+-\s+-\s+-\s+-\s+0\s+0\s+0\s+0\n", captured.out)
    # No line says Claude made no call: it made 9. The examples needing no judge are still said, and counted
    # as the error counts them.
    assert "no call was made" not in captured.out
    assert ("claude: 2 examples needing no judge (no claim, or nothing retrieved), not measured either: the "
            "judge failed on every example it had to judge\n") in captured.out
    assert "lexical: 2 of 5 examples needing no judge" in captured.out

    report = json.loads(out.read_text())
    assert (report["report"], report["complete"], report["error"], report["common"]) == (
        "ragmon calibrate", False, why, None)
    lexical, claude = report["judges"]
    third = pytest.approx(1 / 3)
    assert lexical["sentence"] == {"tp": 1, "fp": 0, "fn": 2, "tn": 3, "precision": 1.0, "recall": third,
                                   "f1": 0.5, "accuracy": pytest.approx(4 / 6)}
    assert lexical["response"] == {"tp": 1, "fp": 0, "fn": 2, "tn": 2, "precision": 1.0, "recall": third,
                                   "f1": 0.5, "accuracy": 0.6}
    assert (claude["sentence"], claude["response"]) == (EMPTY, EMPTY)
    assert [s["id"] for s in claude["skipped"]] == ["e1", "e2", "e3"]
    assert [claude[count] for count in ("examples", "examples_needing_no_judge", "examples_from_cache")] == [
        0, 2, 0]
    assert claude["cost_usd_per_example"] is None and claude["latency_seconds_per_example"] is None


def test_what_the_calls_cost_in_all_is_reported_when_every_one_failed(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A, B and C each get one reply billed 1,000 in + 100 out that has no verdicts list (refused, not
    retried); F needs no judge. No figure per example (no call gave a verdict), yet the 3 replies were
    paid for: 3,000 in / 300 out, at claude-haiku-4-5's $1/$5 per million $0.003 + $0.0015 = $0.0045.
    The error, the table and the report each count F as the 1 example needing no judge."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = ToolInput({"verdicts": "x"}, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", [*RECORDS[:3], NOTHING_RETRIEVED])
    out = tmp_path / "cal.json"
    code = main(["calibrate", str(data), "--judge", "claude", "--judge-errors", "skip", "--json", str(out)])
    captured = capsys.readouterr()
    assert (code, fake_api.calls) == (2, 3)
    assert "not even on the 1 example needing no judge" in captured.err
    assert re.search(r"claude\s+0\s+3\s+0\s+-\s+-\s+-\n", captured.out)  # examples 0, skipped 3
    assert ("claude: 1 example needing no judge (no claim, or nothing retrieved), not measured either"
            in captured.out)
    assert ("claude: this run's calls, a skipped example's too, billed 3,000 tokens in / 300 out in all, "
            "$0.004500\n") in captured.out
    (claude,) = json.loads(out.read_text())["judges"]
    assert (claude["input_tokens"], claude["output_tokens"]) == (3_000, 300)
    assert claude["cost_usd"] == pytest.approx(0.0045)
    assert (claude["cost_usd_per_example"], claude["examples"], claude["examples_needing_no_judge"]) == (
        None, 0, 1)


@pytest.mark.parametrize("model", ["claude-foo-9", "claude-foo-9-20251001"])
def test_a_model_with_no_known_price_is_warned_of_once_and_its_tokens_still_reported(
        model: str, fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Without --llm-price-input/--llm-price-output the cost column would read "-" with no word why. Two
    calls of 1,000 in + 100 out: 2,000 / 200 in all."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--llm-model", model, "--json", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == (f"ragmon calibrate: warning: no known price for --llm-model '{model}', so no "
                            "cost is shown: set --llm-price-input and --llm-price-output (USD per million "
                            "tokens) to see it\n")
    assert ("claude: this run's calls, a skipped example's too, billed 2,000 tokens in / 200 out in all; no "
            "cost without a price for its model\n") in captured.out
    (claude,) = json.loads(out.read_text())["judges"]
    assert (claude["input_tokens"], claude["output_tokens"], claude["cost_usd"]) == (2_000, 200, None)


def test_a_dated_snapshot_is_priced_as_its_model(fake_api: FakeAnthropic, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`claude-haiku-4-5-20251001` pins claude-haiku-4-5, listed at $1 in / $5 out per million tokens: two
    calls of 1,000 in + 100 out cost 2 x (1,000 x 1 + 100 x 5) / 10^6 = $0.003, and nothing is warned of."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--llm-model", "claude-haiku-4-5-20251001",
                 "--json", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    (claude,) = json.loads(out.read_text())["judges"]
    assert claude["cost_usd"] == pytest.approx(0.003)


@pytest.mark.parametrize("price", ["--llm-price-input", "--llm-price-output"])
def test_one_price_alone_for_a_model_with_no_known_price_is_refused_before_any_call(
        price: str, fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    assert main(["calibrate", str(data), "--judge", "claude", "--llm-model", "claude-foo-9", price, "3"]) == 2
    assert fake_api.calls == 0
    assert capsys.readouterr().err == (
        "ragmon calibrate: error: no known price for --llm-model 'claude-foo-9': set --llm-price-input and "
        "--llm-price-output (USD per million tokens) so the cost can be worked out\n")


def test_a_judge_that_failed_on_some_examples_still_exits_0(fake_api: FakeAnthropic, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim)
    fast_500 = Fail(500, "api_error", {"retry-after-ms": "1"})
    fake_api.enqueue(fast_500, fast_500, fast_500)  # A's first attempt and both retries
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    assert main(["calibrate", str(data), "--judge", "claude", "--judge-errors", "skip",
                 "--llm-concurrency", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and re.search(r"claude\s+1\s+1\s", captured.out)  # examples 1, skipped 1
    assert "skipped A (claude): example 'A': Claude judge: API error 500" in captured.out


def test_a_skipped_id_with_half_an_emoji_is_printed_escaped_and_written_as_u_fffd(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Example A's id ends in a lone surrogate (json.dumps writes it as the "\ud83d" escape). Its three
    # attempts fail, so it is skipped and named: on a UTF-8 stdout as its escape (the character itself
    # cannot be printed), and in --json as U+FFFD (jq 1.6 refuses a file holding the escape).
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim)
    fast_500 = Fail(500, "api_error", {"retry-after-ms": "1"})
    fake_api.enqueue(fast_500, fast_500, fast_500)
    data = write_dataset(tmp_path / "labelled.jsonl", [{**RECORDS[0], "id": "A\ud83d"}, RECORDS[1]])
    report = tmp_path / "calibration.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--judge-errors", "skip",
                 "--llm-concurrency", "1", "--json", str(report)]) == 0
    assert "skipped A\\ud83d (claude): " in capsys.readouterr().out
    doc = json.loads(report.read_text(encoding="utf-8"))
    json.dumps(doc, ensure_ascii=False).encode("utf-8")  # raises on any surrogate left in a string
    [claude] = [j for j in doc["judges"] if j["judge"] == "claude"]
    assert [s["id"] for s in claude["skipped"]] == ["A\ufffd"]


def test_examples_from_the_cache_are_counted_apart_and_left_out_of_the_figures_per_example(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The figures per example size a budget: a cache hit, free and instant, must not pass for a call.
    First run, A and B: 2 calls of 1,000 in + 100 out each. Second run, A to E with the same --cache-dir: A
    and B from the cache, 3 calls for C, D and E; per example over those 3: 1,000 / 100 and $0.0015 (at
    $1/$5 per million), not 600 / 60 and $0.0009 over all 5. A third run of A to E makes no call at all."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    cache = tmp_path / "cache"
    out = tmp_path / "cal.json"
    first = write_dataset(tmp_path / "first.jsonl", RECORDS[:2])
    assert main(["calibrate", str(first), "--judge", "claude", "--cache-dir", str(cache)]) == 0
    capsys.readouterr()
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    argv = ["calibrate", str(data), "--judge", "claude", "--cache-dir", str(cache), "--json", str(out)]
    assert main(argv) == 0
    assert fake_api.calls == 5
    (claude,) = json.loads(out.read_text())["judges"]
    assert claude["examples"] == 5 and claude["examples_from_cache"] == 2
    assert (claude["input_tokens_per_example"], claude["output_tokens_per_example"]) == (1_000, 100)
    assert claude["cost_usd_per_example"] == pytest.approx(0.0015)
    assert claude["latency_seconds_per_example"] > 0
    table = capsys.readouterr().out
    assert re.search(r"claude\s+5\s+0\s+2\s+[\d.]+ ms\s+1,000 / 100\s+\$0\.001500\n", table)
    assert ("claude: 2 of 5 examples from the cache, left out of the figures per example (over the other "
            "3)\n") in table
    # All from the cache: no figure per example, rather than $0.000000, 0 / 0 and a fraction of a ms.
    assert main(argv) == 0
    assert fake_api.calls == 5
    (claude,) = json.loads(out.read_text())["judges"]
    assert claude["examples_from_cache"] == 5
    assert [claude[f"{what}_per_example"] for what in ("latency_seconds", "input_tokens", "output_tokens",
                                                       "cost_usd")] == [None] * 4
    table = capsys.readouterr().out
    assert re.search(r"claude\s+5\s+0\s+5\s+-\s+-\s+-\n", table)
    assert ("claude: 5 of 5 examples from the cache: no call was made, so there are no figures per example "
            "(run with an empty --cache-dir to measure them)\n") in table


def test_an_example_needing_no_judge_is_left_out_of_the_figures_per_example(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """F retrieved nothing, so its claim is unsupported without a call: A and B make 2 calls of 1,000 in +
    100 out, and per example that is 1,000 / 100 over the 2 examples a call judged, not 667 / 67 over 3."""
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", [*RECORDS[:2], NOTHING_RETRIEVED])
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--json", str(out)]) == 0
    assert fake_api.calls == 2
    (claude,) = json.loads(out.read_text())["judges"]
    counts = ("examples", "examples_needing_no_judge", "examples_from_cache")
    assert [claude[count] for count in counts] == [3, 1, 0]
    assert (claude["input_tokens_per_example"], claude["output_tokens_per_example"]) == (1_000, 100)
    assert ("claude: 1 of 3 examples needing no judge (no claim, or nothing retrieved), left out of the "
            "figures per example (over the other 2)\n") in capsys.readouterr().out


def test_the_calls_for_a_skipped_example_count_in_the_figures_per_example_judged(
        fake_api: FakeAnthropic, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As the README says: every call made counts, a skipped example's too, over the examples a call judged.
    A's reply is billed 500 in + 50 out and refused (no verdicts list), so A is skipped; B's is billed 1,000
    in + 100 out. Per example judged (B): 1,500 / 150, and $0.00225 at $1/$5 per million: what a verdict
    costs when some calls are wasted, the figure a budget must hold."""
    claude_env(monkeypatch, fake_api)
    fake_api.enqueue(ToolInput({"verdicts": "none"}, usage=(500, 50)))
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS[:2])
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--judge", "claude", "--judge-errors", "skip",
                 "--llm-concurrency", "1", "--json", str(out)]) == 0
    (claude,) = json.loads(out.read_text())["judges"]
    assert fake_api.calls == 2 and [s["id"] for s in claude["skipped"]] == ["A"] and claude["examples"] == 1
    assert (claude["input_tokens_per_example"], claude["output_tokens_per_example"]) == (1_500, 150)
    assert claude["cost_usd_per_example"] == pytest.approx(0.00225)


def test_an_unusable_cache_dir_exits_2_before_any_judging(fake_api: FakeAnthropic, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    claude_env(monkeypatch, fake_api)
    afile = tmp_path / "afile"
    afile.write_text("")
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    code = main(["calibrate", str(data), "--judge", "lexical", "--judge", "claude",
                 "--cache-dir", str(afile / "sub")])
    captured = capsys.readouterr()
    # Refused while the judges are built: no call, and not even the free lexical figures first.
    assert code == 2 and fake_api.calls == 0 and captured.out == ""
    assert captured.err == (f"ragmon calibrate: error: {afile / 'sub'}: cannot keep Claude verdicts in this "
                            f"directory: {afile} is not a directory\n")


# --- the example file a user can try calibrate on: examples/labelled.jsonl --------------------------------

LABELLED_EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "labelled.jsonl"


def test_every_labelled_span_in_the_example_file_is_a_sentence_of_its_answer() -> None:
    """The spans were computed by a script (str.index of each sentence), not counted by hand; here each
    must be exactly one claim as ragmon splits the answer, and `hallucinated` say whether there is one."""
    examples = list(datasets.load([LABELLED_EXAMPLES]))
    assert len(examples) == 11
    for example in examples:
        labels = example.extra["labels"]
        claims = {(claim.start, claim.end) for claim in example_claims(example)}
        spans = [(span["start"], span["end"]) for span in labels["spans"]]
        assert all(span in claims for span in spans), example.id
        assert labels["hallucinated"] == bool(spans), example.id


# What the lexical judge decides on each claim of examples/labelled.jsonl, reasoned from its rules (a claim
# is supported by one context holding >= 56% of its stemmed content terms and every number it states, and
# not the opposite of one of its words without the word; function words such as "not", "are", "each" are no
# terms). gold = the label, pred = the judge's verdict, x/y = the claim's terms found in the best context.
# tb-01 "An annual membership costs 90 pounds."  gold ok; annual membership pound 3/4, and 90: ok      -> TN
#       "Members ride free for the first 45 minutes of each trip."  gold ok; 6/6 and 45: ok           -> TN
# tb-02 "A day pass costs 15 pounds."  gold UNS; casual 4/4 but states 12, not 15: UNS                 -> TP
#       "It covers unlimited 30-minute rides within 24 hours."  gold ok; 5/5, 30 and 24: ok           -> TN
# tb-03 "Riders are charged for damage reported before the ride."  gold UNS (the context says NOT
#       charged); pred ok: 5/5, and "not" is a function word, so the negation goes unseen             -> FN
#       "Report damage in the app before you start."  gold ok; 4/4: ok                                -> TN
# tb-04 "E-bikes are available at 40 of the 120 docking stations."  gold ok; 5/5, 40 and 120: ok      -> TN
#       "They can also be rented at the Riverside Cafe."  gold UNS; rent riverside cafe 0/3: UNS      -> TP
# tb-05 "You need to be 16 or older to use the bikes."  gold ok (a paraphrase of "at least 16 years
#       old"); pred UNS: need older use bike 0/4 ("older" does not stem to "old")                     -> FP
#       "Younger children can ride only on a family account ..."  gold ok; 6/7: ok                    -> TN
# tb-06 "Annual memberships are refundable after 14 days."  gold UNS; cancel 3/4 and 14, but it says
#       "non-refundable" and never "refundable": the opposite rule, UNS                               -> TP
#       "Cancelling within 14 days of purchase pays back the full price."  gold ok; 6/7 ("pays" is
#       not "paid") and 14: ok                                                                        -> TN
# tb-07 "Members pay 1 pound for each extra 15 minutes, and the first hour is free."  gold UNS (45
#       minutes are free, not an hour): partly supported; pred ok, 7/8 with 1 and 15                  -> FN
# tb-08 "A day pass costs 12 pounds, and e-bikes cost an extra 50 pence per ride."  gold ok (both facts
#       were retrieved); pred UNS: casual lacks 50, ebikes lacks 12, and support stitched from two
#       contexts is no support                                                                        -> FP
# tb-09 "The documents do not say whether helmets are provided."  an abstention: no claim
# tb-10 "The service operates around the clock, every day of the year."  gold ok; service day year
#       3/5 = 0.6 >= 0.56: ok, just ("operates" and "clock" are not in the context)                   -> TN
#       "Docking stations are cleared of snow by 7 am."  gold ok; 4/4 and 7: ok                       -> TN
# tb-11 "Helmets are lent free at every docking station."  gold UNS; ebikes dock station 2/5: UNS     -> TP
#       "Riders must wear a helmet on e-bikes."  gold UNS; ebikes e bike 2/5: UNS                     -> TP
# Sentence: TP 5, FP 2, FN 2, TN 9 (18 claims, 7 labelled unsupported).
# Response (any claim predicted unsupported vs `hallucinated`): TP tb-02 04 06 11, FP tb-05 08, FN tb-03 07,
# TN tb-01 09 10 -> 4 / 2 / 2 / 3 (11 responses, 6 labelled hallucinated).
# With --lexical-threshold 0.7 only tb-10's first claim (3/5 = 0.6) falls short (every other supported claim
# holds >= 3/4 of its terms): one more false alarm, in a response labelled clean.
EXAMPLE_COUNTS = {
    0.56: ({"tp": 5, "fp": 2, "fn": 2, "tn": 9}, {"tp": 4, "fp": 2, "fn": 2, "tn": 3}),
    0.7: ({"tp": 5, "fp": 3, "fn": 2, "tn": 8}, {"tp": 4, "fp": 3, "fn": 2, "tn": 2}),
}


@pytest.mark.parametrize("threshold", EXAMPLE_COUNTS)
def test_calibrate_on_the_example_file_gives_the_counts_reasoned_above(ragmon_cmd: list[str], tmp_path: Path,
                                                                      threshold: float) -> None:
    out = tmp_path / "calibration.json"
    run = subprocess.run([*ragmon_cmd, "calibrate", str(LABELLED_EXAMPLES), "--lexical-threshold",
                          str(threshold), "--json", str(out)], capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr
    figures = json.loads(out.read_text())
    assert (figures["examples"], figures["claims"], figures["labelled_unsupported"],
            figures["hallucinated"]) == (11, 18, 7, 6)
    (lexical,) = figures["judges"]
    assert lexical["settings"] == {"threshold": threshold} and lexical["skipped"] == []
    sentence, response = EXAMPLE_COUNTS[threshold]
    assert {k: lexical["sentence"][k] for k in sentence} == sentence
    assert {k: lexical["response"][k] for k in response} == response
    assert "11 labelled examples: 18 claims, 7 labelled unsupported" in run.stdout


def test_a_dash_reads_the_labelled_examples_from_standard_input(ragmon_cmd: list[str],
                                                                tmp_path: Path) -> None:
    # As for replay: `cat labelled.jsonl | ragmon calibrate -`, errors naming <stdin>, and standard input
    # named twice refused (read again, it would be empty).
    def calibrate_piped(data: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*ragmon_cmd, "calibrate", *args], input=data, cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False)

    labelled = LABELLED_EXAMPLES.read_text(encoding="utf-8")
    done = calibrate_piped(labelled, "-")
    assert done.returncode == 0, done.stderr
    assert "11 labelled examples: 18 claims, 7 labelled unsupported" in done.stdout
    unlabelled = '{"id": "a", "question": "q", "answer": "x", "contexts": [{"id": "d", "text": "x"}]}\n'
    done = calibrate_piped(unlabelled, "-")
    assert (done.returncode, done.stderr) == (2, "ragmon calibrate: error: <stdin>:1: example 'a': no labels "
                                              "object (calibration needs human labels on every example) "
                                              "(field 'labels')\n")
    done = calibrate_piped(labelled, "-", "-")
    assert (done.returncode, done.stderr) == (2, "ragmon calibrate: error: standard input (-) is named 2 "
                                              "times among the datasets: it can be read only once\n")


def test_figures_are_never_written_over_the_labelled_examples(ragmon_cmd: list[str], tmp_path: Path) -> None:
    # `ragmon calibrate labelled.jsonl --json labelled.jsonl`, or the same through standard input, replaced
    # people's labels with the figures and exited 0.
    labelled = tmp_path / "labelled.jsonl"
    labelled.write_bytes(LABELLED_EXAMPLES.read_bytes())
    named = subprocess.run([*ragmon_cmd, "calibrate", str(labelled), "--json", "labelled.jsonl"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    with labelled.open("rb") as stdin:
        piped = subprocess.run([*ragmon_cmd, "calibrate", "-", "--json", str(labelled)], stdin=stdin,
                               cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert (named.returncode, named.stderr) == (2, (
        f"ragmon calibrate: error: --json labelled.jsonl is the dataset {labelled}: the figures would "
        "replace the labelled examples; give the figures a file of their own\n"))
    assert (piped.returncode, piped.stderr) == (2, (
        f"ragmon calibrate: error: --json {labelled} is the dataset <stdin>: the figures would replace the "
        "labelled examples; give the figures a file of their own\n"))
    assert labelled.read_bytes() == LABELLED_EXAMPLES.read_bytes()
    # Named by RAGMON_CALIBRATE_JSON, a CI job's setting, the variable is named: the flag had been.
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")},
           "RAGMON_CALIBRATE_JSON": "labelled.jsonl"}
    by_variable = subprocess.run([*ragmon_cmd, "calibrate", str(labelled)], cwd=tmp_path, env=env,
                                 capture_output=True, text=True, timeout=120, check=False)
    assert (by_variable.returncode, by_variable.stderr) == (2, (
        f"ragmon calibrate: error: RAGMON_CALIBRATE_JSON labelled.jsonl (--json) is the dataset {labelled}: "
        "the figures would replace the labelled examples; give the figures a file of their own\n"))
    assert labelled.read_bytes() == LABELLED_EXAMPLES.read_bytes()


class AsyncOnlyVerbatim:
    """A network judge of one's own as the README allows it: the coroutine `ajudge`, no blocking `judge`.
    A claim is supported by the contexts holding it word for word, as `verbatim` decides for the fake API."""

    name = "async-only"

    def settings(self) -> dict[str, Any]:
        return {"rule": "verbatim"}

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        verdicts = []
        for claim in claims:
            ids = tuple(c.id for c in example.contexts or () if claim.text in c.text)
            verdicts.append(ClaimVerdict(claim, bool(ids), ids))
        return tuple(verdicts)


def labelled_records() -> list[Any]:
    return [labelled(load_example(r), "mem") for r in RECORDS]


def test_a_judge_with_only_ajudge_is_calibrated() -> None:
    # Used to fail with AttributeError: 'AsyncOnlyVerbatim' object has no attribute 'judge'.
    result = calibrate(AsyncOnlyVerbatim(), labelled_records())
    assert (result.judge, result.settings, result.examples) == ("async-only", {"rule": "verbatim"}, 5)
    assert result.sentence.as_dict() == SENTENCE and result.response.as_dict() == RESPONSE
    # It reports no tokens: unknown, not 0.
    assert result.input_tokens is None and result.cost_usd is None


async def test_in_a_running_event_loop_calibrate_says_to_await_acalibrate(
        fake_api: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> None:
    # A notebook cell: calibrate() used to fail with asyncio's "asyncio.run() cannot be called from a
    # running event loop" (and a warning of a coroutine never awaited).
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim, usage=(1_000, 100))
    judge, items = ClaudeJudge(), labelled_records()
    with pytest.raises(RuntimeError) as error:
        calibrate(judge, items)
    assert str(error.value) == ("calibrate() runs the 'claude' judge in an event loop of its own, and one is "
                                "running here (a notebook's): await ragmon.calibrate.acalibrate(judge, "
                                "items) instead")
    assert fake_api.calls == 0
    try:
        result = await acalibrate(judge, items)
    finally:
        await judge.aclose()  # the caller's loop, the caller's judge to close
    assert result.sentence.as_dict() == SENTENCE and result.response.as_dict() == RESPONSE
    # One call per example, each billed 1,000 in + 100 out.
    assert fake_api.calls == 5 and (result.input_tokens, result.output_tokens) == (5_000, 500)
    custom = await acalibrate(AsyncOnlyVerbatim(), items)
    assert custom.sentence.as_dict() == SENTENCE and custom.response.as_dict() == RESPONSE
    # A blocking judge needs no loop: calibrate() runs it here as anywhere.
    with pytest.raises(TypeError) as wrong:
        await acalibrate(LexicalJudge(), items)  # type: ignore[arg-type]
    assert str(wrong.value) == ("acalibrate awaits judge.ajudge(example, claims), which LexicalJudge lacks: "
                                "call calibrate(), which a running event loop can call too")
    assert calibrate(LexicalJudge(), items).sentence.as_dict() == SENTENCE


def test_of_several_judge_errors_the_earliest_examples_is_raised_whatever_came_first(
        tmp_path: Path) -> None:
    # Concurrent calls failing in whatever order the API answered named another example on each run
    # (l2, l3, l1 in a user's three runs); evaluate names the earliest, as a run in turn would.
    class Failing:
        name = "failing"

        def settings(self) -> dict[str, Any]:
            return {}

        async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
            if example.id == "A":  # the first example's call is the slowest to fail
                await asyncio.sleep(0.2)
            raise JudgeError(f"no verdict for {example.id}")

    with pytest.raises(JudgeError) as raised:
        calibrate(Failing(), labelled_records(), concurrency=4)
    assert str(raised.value) == "no verdict for A"


def test_a_judge_not_reached_for_3_examples_in_a_row_is_not_called_for_the_rest() -> None:
    # As evaluate and replay skip since ca478f4: calibrate waited for each example in turn, its connection
    # attempts on a closed port, or 3 timeouts of 60 s against an API that never answers (1,000 examples at
    # --llm-concurrency 4: some 12 hours), to list every one skipped.
    port = free_port()  # nothing listens on it
    judge = ClaudeJudge(base_url=f"http://127.0.0.1:{port}", api_key="test-key", max_retries=0)

    result = calibrate(judge, labelled_records(), skip_errors=True, concurrency=1)

    assert result.examples == 0
    assert [example_id for example_id, _ in result.skipped] == ["A", "B", "C", "D", "E"]
    tried = f"cannot reach the API at http://127.0.0.1:{port}: the request was never sent"
    assert all(tried in reason for _, reason in result.skipped[:3])
    for _, reason in result.skipped[3:]:
        assert reason.startswith("not judged: the judge was not reached for 3 examples in a row")
        assert reason.endswith(f"the last error: example 'C': Claude judge: {tried} (ConnectError; 1 "
                               "attempt)")


def test_a_ci_log_is_told_how_far_each_judge_has_got(fake_api: FakeAnthropic, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # Before: nothing on stderr until the table, however long the run (the Claude judge at 3 s a call on
    # 1,000 examples, 4 at once: some 12 minutes), where a CI job's no-output timeout ends a silent step;
    # replay says how far it has got. A line every 30 s in a log (here every example) and, as for replay,
    # none with --quiet.
    monkeypatch.setattr(Progress, "LOG_INTERVAL", 0.0)
    claude_env(monkeypatch, fake_api)
    fake_api.default = Reply(decide=verbatim)
    data = write_dataset(tmp_path / "labelled.jsonl", RECORDS)
    assert main(["calibrate", str(data), "--judge", "lexical", "--judge", "claude", "--llm-concurrency", "1",
                 "--llm-price-input", "1", "--llm-price-output", "5"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        *(f"lexical: judged {done} of 5 examples" for done in range(1, 6)),
        *(f"claude: judged {done} of 5 examples" for done in range(1, 6))]
    assert main(["calibrate", str(data), "--quiet", "--json", str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("judge", [LexicalJudge(), AsyncOnlyVerbatim()], ids=["in turn", "awaited"])
def test_calibrate_calls_progress_after_each_example(judge: Any) -> None:
    calls: list[tuple[int, int]] = []
    calibrate(judge, labelled_records(), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    with pytest.raises(TypeError) as wrong:
        calibrate(judge, labelled_records(), progress=5)
    assert str(wrong.value) == "progress must be a function called as progress(done, total), got int"


def test_a_numpy_concurrency_is_declared_so_to_a_type_checker() -> None:
    # A user's mypy refused calibrate(judge, items, concurrency=np.int64(4)), a config table's number,
    # which runs: the parameter was declared `int`, where aevaluate's takes it.
    for function in (calibrate, acalibrate):
        assert isinstance(np.int64(4), typing.get_type_hints(function)["concurrency"]), function.__name__


def test_labels_that_are_not_an_object_are_told_what_they_should_be(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "labels": "yes" was told "no labels object", as if the field were missing.
    record = {**RECORDS[0], "labels": "yes"}
    data = write_dataset(tmp_path / "bad.jsonl", [record])
    assert main(["calibrate", str(data)]) == 2
    assert capsys.readouterr().err == (
        f"ragmon calibrate: error: {data}:1: example 'A': must be an object "
        "{\"hallucinated\": true or false, \"spans\": [...]}, got a string (field 'labels')\n")


def test_counts_of_one_are_written_in_the_singular(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    record = {"id": "A", "question": "q", "contexts": [{"id": "d1", "text": "Paris is in France."}],
              "answer": "Paris is in France.", "labels": {"hallucinated": False, "spans": []}}
    assert main(["calibrate", str(write_dataset(tmp_path / "one.jsonl", [record]))]) == 0
    assert capsys.readouterr().out.startswith(
        "1 labelled example: 1 claim, 0 labelled unsupported; 0 responses labelled hallucinated\n")
    # An answer making no claim needs no judge: one of one.
    abstains = {**record, "answer": "I don't know.", "labels": {"hallucinated": False, "spans": []}}
    assert main(["calibrate", str(write_dataset(tmp_path / "none.jsonl", [abstains]))]) == 0
    assert capsys.readouterr().out.endswith(
        "lexical: 1 of 1 example needing no judge (no claim, or nothing retrieved): no call was made, so "
        "there are no figures per example\n")


# "🚲🚲 " is 3 characters (each emoji one code point), so the three sentences are characters 3-29, 30-51
# and 52-76. In UTF-16 each emoji is 2 code units and in UTF-8 4 bytes: "Helmets cost 5 euros." is units
# 32-53 and bytes 36-57, and read as characters those mark "lmets cost 5 euros. Do" and "s cost 5 euros.
# Docks", the second sentence and the third: both had been labelled unsupported, and nothing said so.
# "Docks close at midnight." is characters 52-76 and units 54-78.
CYCLES = "🚲🚲 Bikes are free on Sundays. Helmets cost 5 euros. Docks close at midnight."
HELMETS = "Helmets cost 5 euros."


def cycles(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"id": "H", "question": "q", "contexts": [{"id": "d1", "text": "Bikes are free on Sundays."}],
            "answer": CYCLES, "labels": {"hallucinated": True, "spans": list(spans)}}


@pytest.mark.parametrize(("span", "why"), [
    ({"start": 32, "end": 53, "text": HELMETS},
     'start 32 and end 53 count UTF-16 code units (as JavaScript and Java count a string): its text "Helmets '
     'cost 5 euros." is characters 30-51, and offsets count characters (code points, as Python does: an '
     "emoji is one)"),
    # Past the answer's 76 characters, which had been all the error said.
    ({"start": 54, "end": 78, "text": "Docks close at midnight."},
     'start 54 and end 78 count UTF-16 code units (as JavaScript and Java count a string): its text "Docks '
     'close at midnight." is characters 52-76, and offsets count characters (code points, as Python does: an '
     "emoji is one)"),
    ({"start": 36, "end": 57, "text": HELMETS},
     'start 36 and end 57 count UTF-8 bytes: its text "Helmets cost 5 euros." is characters 30-51, and '
     "offsets count characters (code points, as Python does: an emoji is one)"),
    ({"start": 30, "end": 51, "text": "Helmets are free."},
     'characters 30-51 of the answer are "Helmets cost 5 euros.", not its text "Helmets are free." (offsets '
     "count characters, code points: an emoji is one)"),
    # Text copied with its white space changed is still found at the offsets a tool counted otherwise.
    ({"start": 32, "end": 53, "text": "Helmets  cost 5 euros."},
     'start 32 and end 53 count UTF-16 code units (as JavaScript and Java count a string): its text "Helmets '
     'cost 5 euros." is characters 30-51, and offsets count characters (code points, as Python does: an '
     "emoji is one)"),
    ({"start": 36, "end": 57, "text": "Helmets cost\n5 euros."},
     'start 36 and end 57 count UTF-8 bytes: its text "Helmets cost 5 euros." is characters 30-51, and '
     "offsets count characters (code points, as Python does: an emoji is one)"),
    # "5 0 euros" is not "5 euros"; the tab had been quoted as a space, unlike the file.
    ({"start": 30, "end": 51, "text": "Helmets cost 5\t0 euros."},
     'characters 30-51 of the answer are "Helmets cost 5 euros.", not its text "Helmets cost 5\\t0 euros." '
     "(offsets count characters, code points: an emoji is one)"),
], ids=["utf-16 units", "utf-16 units past the end", "utf-8 bytes", "other text",
        "utf-16 units, text spaced otherwise", "utf-8 bytes, text with a line end", "a tab where none is"])
def test_a_span_whose_text_is_not_the_answers_there_is_refused_naming_the_characters_meant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], span: dict[str, Any], why: str) -> None:
    data = write_dataset(tmp_path / "labelled.jsonl", [cycles(span)])
    assert main(["calibrate", str(data)]) == 2
    assert capsys.readouterr().err == (f"ragmon calibrate: error: {data}:1: example 'H': {why} "
                                       "(field 'labels.spans[0]')\n")


def test_a_span_whose_text_is_the_answers_there_labels_that_sentence_alone(tmp_path: Path) -> None:
    """Offsets in characters, with the text (SALAD's spans carry it) as it is there, or with white space
    at either end the offsets leave out, or null (not given, as null is elsewhere); lines ending in CRLF
    are two characters, as Python counts them: "Helmets cost 5 euros." is characters 31-52 after
    "...Sundays.\\r\\n", the third sentence 54-78."""
    crlf = CYCLES.replace(". ", ".\r\n")
    records = [{**cycles({"start": 30, "end": 51, "text": HELMETS}), "id": "exact"},
               {**cycles({"start": 30, "end": 51, "text": f" {HELMETS}\n"}), "id": "spaced"},
               {**cycles({"start": 30, "end": 51, "text": None}), "id": "null"},
               {**cycles({"start": 31, "end": 52, "text": HELMETS}), "id": "crlf", "answer": crlf}]
    items = load_labelled([write_dataset(tmp_path / "labelled.jsonl", records)])
    assert [(item.example.id, item.unsupported) for item in items] == [
        ("exact", (False, True, False)), ("spaced", (False, True, False)), ("null", (False, True, False)),
        ("crlf", (False, True, False))]
    assert [(c.start, c.end) for c in items[3].claims] == [(0, 29), (31, 52), (54, 78)]


def test_a_claim_another_span_marks_by_a_word_is_not_said_to_be_marked_by_punctuation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Overlapping spans: the first sentence labelled whole (0-29), the second from one character early
    # (28-48), taking the first one's ".". The first is labelled by its words, as meant, yet a warning
    # said it was marked by "." alone.
    paris = "The Eiffel Tower is in Paris. It opened in 1889."
    item = {"id": "P", "question": "q", "contexts": [{"id": "d1", "text": paris}], "answer": paris,
            "labels": {"hallucinated": True, "spans": [{"start": 0, "end": 29}, {"start": 28, "end": 48}]}}
    assert main(["calibrate", str(write_dataset(tmp_path / "labelled.jsonl", [item]))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 labelled example: 2 claims, 2 labelled unsupported; 1 response labelled "
                          "hallucinated\n")
    assert "warning" not in out


def day_pass(id_: str, first: str, end: int, text: str) -> dict[str, Any]:
    """An answer of two sentences, the first labelled unsupported by characters 0-`end` and `text`."""
    return {"id": id_, "question": "q?", "contexts": [{"id": "c", "text": "A day pass costs 12 pounds."}],
            "answer": f"{first} It covers unlimited rides.",
            "labels": {"hallucinated": True, "spans": [{"start": 0, "end": end, "text": text}]}}


def test_a_span_whose_text_differs_only_in_white_space_or_accent_form_labels_its_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Offsets right, text as a labelling tool rewrote it: a double space as one, CRLF as LF, accents
    decomposed (NFD: "e" then U+0301) against the answer's composed ones or the other way, a tab for a
    space. Each had ended the whole run with exit 2. "Le café coûte 15 euros." is characters 0-23 composed,
    0-25 decomposed (two accents, a character each)."""
    composed, decomposed = "Le caf\u00e9 co\u00fbte 15 euros.", "Le cafe\u0301 cou\u0302te 15 euros."
    records = [
        day_pass("ws", "A day pass costs 15  pounds.", 28, "A day pass costs 15 pounds."),
        day_pass("crlf", "A day pass costs\r\n15 pounds.", 28, "A day pass costs\n15 pounds."),
        day_pass("nfd text", composed, 23, decomposed),
        day_pass("nfd answer", decomposed, 25, composed),
        {**cycles({"start": 30, "end": 51, "text": "Helmets cost\t5 euros."}), "id": "tab"},
    ]
    data = write_dataset(tmp_path / "labelled.jsonl", records)
    assert main(["calibrate", str(data)]) == 0
    assert capsys.readouterr().out.startswith(
        "5 labelled examples: 11 claims, 5 labelled unsupported; 5 responses labelled hallucinated\n")
    assert [(item.example.id, item.unsupported) for item in load_labelled([data])] == [
        ("ws", (True, False)), ("crlf", (True, False)), ("nfd text", (True, False)),
        ("nfd answer", (True, False)), ("tab", (False, True, False))]


def test_a_span_whose_text_differs_past_sixty_characters_is_quoted_where_it_differs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The sentence is characters 27-141 (114 long); the text says 30 minutes where it says 45, at
    character 73 of both, after a tab for a space at 9 that does not count. Both are quoted from 20
    characters before the difference (53) for 60 characters: quoted from their start, both had read "An
    annual membership costs 90 pounds and covers unlimited r…", the same words twice."""
    sentence = ("An annual membership costs 90 pounds and covers unlimited rides of up to 45 minutes each, "
                "on any bike in the city.")
    text = sentence.replace("45", "30").replace("annual ", "annual\t")
    record = {"id": "L", "question": "q", "contexts": [{"id": "d1", "text": "Bikes are free on Sundays."}],
              "answer": f"Bikes are free on Sundays. {sentence}",
              "labels": {"hallucinated": True, "spans": [{"start": 27, "end": 141, "text": text}]}}
    data = write_dataset(tmp_path / "labelled.jsonl", [record])
    assert main(["calibrate", str(data)]) == 2
    assert capsys.readouterr().err == (
        f"ragmon calibrate: error: {data}:1: example 'L': characters 27-141 of the answer are "
        '"…ited rides of up to 45 minutes each, on any bike in the city…", not its text "…ited rides '
        'of up to 30 minutes each, on any bike in the city…" (offsets count characters, code points: an '
        "emoji is one) (field 'labels.spans[0]')\n")


def test_load_labelled_given_one_path_bare_is_a_type_error(tmp_path: Path) -> None:
    # A string is a sequence of one-character paths: "t1.jsonl" had been read as the files "t", "1", ...,
    # the error naming a file "t" never given (or reading one, where it existed).
    (tmp_path / "t").write_text("", encoding="utf-8")
    with pytest.raises(TypeError, match=r"^paths must be a list of paths, got one str: pass \['t1.jsonl'\]$"):
        load_labelled("t1.jsonl")  # type: ignore[arg-type]
