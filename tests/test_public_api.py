"""The public API as its users meet it: a notebook's pandas rows and numpy numbers, a script that pickles
or writes its results as JSON, an async service."""

from __future__ import annotations

import asyncio
import json
import pickle
import typing
from decimal import Decimal

import numpy as np
import pytest

from ragmon import Context, EvalConfig, Example, LexicalJudge, aevaluate, evaluate

WARRANTY = "The warranty lasts 2 years."


def test_a_numpy_threshold_scores_as_the_threshold_it_was_written_as() -> None:
    # The claim's terms are refund, reach, custom(er), bank and transfer; the context holds 3 of the 5,
    # exactly the 0.6 asked for. numpy's float32 0.6 is 0.6000000238418579 as a float: read as that, a
    # threshold from a config table called the claim unsupported, and the report said 0.6000000238418579.
    example = Example("q1", "How are refunds paid?", [Context("policy", "Refunds reach customers quickly.")],
                      "Refunds reach customers through bank transfer.")
    for threshold in (0.6, np.float32(0.6), Decimal("0.6")):
        report = evaluate([example], LexicalJudge(threshold))
        assert report.results[0].metrics["groundedness"] == 1.0, threshold
        assert report.judge == {"name": "lexical", "threshold": 0.6}


def test_the_numbers_the_api_takes_of_numpy_are_declared_so_to_a_type_checker() -> None:
    # A user's mypy refused LexicalJudge(np.float32(0.6)) and aevaluate(..., concurrency=np.int64(4)),
    # which run: the parameters were declared `float` and `int`.
    threshold = typing.get_type_hints(LexicalJudge.__init__)["threshold"]
    concurrency = typing.get_type_hints(aevaluate)["concurrency"]
    assert isinstance(np.float32(0.6), threshold) and isinstance(np.int64(4), concurrency)


def test_a_missing_score_from_a_dataframe_is_no_score_and_results_survive_a_pickle() -> None:
    # pandas gives NaN for an empty cell. Kept as NaN, an example equalled no copy of itself (NaN equals
    # nothing), so a report sent back from a worker process differed from the one sent.
    examples = [Example(f"q{n}", "How long?", [Context("d1", WARRANTY, score)], WARRANTY)
                for n, score in enumerate((float("nan"), np.float32("nan"), float("inf")))]
    assert [example.contexts[0].score for example in examples if example.contexts] == [None, None, None]
    report = evaluate(examples)
    assert pickle.loads(pickle.dumps(report)) == report


@pytest.mark.parametrize(("build", "message"), [
    (lambda: Example("q1", float("nan")),
     "Example 'q1': question must be a string, got float (NaN, pandas' missing value: question cannot be "
     "unknown, so fill or drop the row)"),
    (lambda: Example(float("nan"), "q?"),
     "Example.id must be a string, got float (NaN, pandas' missing value: id cannot be unknown, so fill or "
     "drop the row)"),
    (lambda: Context("d1", float("nan")),
     "Context.text must be a string, got float (NaN, pandas' missing value: text cannot be unknown, so fill "
     "or drop the row)"),
])
def test_an_empty_cell_where_a_text_is_required_is_named_as_one(build: typing.Callable[[], object],
                                                                message: str) -> None:
    # An optional field's NaN was told apart ("pass None"), a required one's read "got float" alone.
    with pytest.raises(TypeError) as raised:
        build()
    assert str(raised.value) == message


def test_a_report_is_json_by_a_documented_route() -> None:
    # json.dumps(dataclasses.asdict(report)) failed on relevant_ids, a frozenset; there was no other route.
    example = Example("q1", "How long?", [Context("d1", WARRANTY, float("nan"))],
                      "The warranty lasts 2 years. It covers water damage.", relevant_ids=["d1", "d2"])
    written = json.loads(json.dumps(evaluate([example]).to_dict(), allow_nan=False))
    assert written["judge"] == {"name": "lexical", "threshold": 0.56}
    # One of two claims supported; d1 retrieved of the relevant d1 and d2.
    assert written["aggregates"]["groundedness"]["mean"] == 0.5
    assert written["aggregates"]["recall"]["mean"] == 0.5
    [result] = written["results"]
    assert result["id"] == "q1" and result["relevant_not_retrieved"] == ["d2"]
    assert [(claim["text"], claim["supported"]) for claim in result["claims"]] == [
        ("The warranty lasts 2 years.", True), ("It covers water damage.", False)]


async def test_an_async_service_is_told_how_to_run_the_lexical_judge_off_its_loop() -> None:
    # aevaluate refuses a judge without ajudge; "call evaluate()" alone blocked the service's loop for the
    # whole run (100,000 examples: 24 s). The advice given runs, and gives the figures evaluate gives.
    examples = [Example("q1", "How long?", [Context("d1", WARRANTY)], WARRANTY)]
    with pytest.raises(TypeError, match=r"await asyncio\.to_thread\(ragmon\.evaluate, examples, judge\)"):
        await aevaluate(examples, LexicalJudge())  # type: ignore[arg-type]
    report = await asyncio.to_thread(evaluate, examples, LexicalJudge(), EvalConfig(bootstrap_samples=0))
    assert report.aggregates["groundedness"].mean == 1.0
