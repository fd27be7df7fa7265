"""The data model refuses mistyped fields when built, naming them, and takes lists for tuples and sets."""

from __future__ import annotations

import pytest

from ragmon import Context, EvalConfig, Example, evaluate


def test_lists_are_taken_and_stored_as_the_declared_types() -> None:
    example = Example("e1", "q?", [Context("d1", "t")], "a.", relevant_ids=["d1", "d1"], citations=["d1"])
    assert example.contexts == (Context("d1", "t"),)
    assert example.relevant_ids == frozenset({"d1"})
    assert example.citations == ("d1",)
    assert hash(example) == hash(Example("e1", "q?", (Context("d1", "t"),), "a.", frozenset({"d1"}), ("d1",)))


@pytest.mark.parametrize(("build", "message"), [
    # A lone string is iterable too: "d1" would be cited as "d" and "1".
    (lambda: Example("e1", "q?", citations="d1"),
     "Example 'e1': citations must be an iterable of str, got str"),
    (lambda: Example("e1", "q?", relevant_ids="d1"), "Example 'e1': relevant_ids must be an iterable of str"),
    (lambda: Example("e1", "q?", contexts="some text"),
     "Example 'e1': contexts must be an iterable of Context"),
    (lambda: Example("q7", "q?", contexts=[{"id": "d1", "text": "t"}]),
     "Example 'q7': contexts[0] must be a Context, got dict"),
    (lambda: Example("e1", "q?", relevant_ids=["d1", 2]),
     "Example 'e1': relevant_ids[1] must be a str, got int"),
    (lambda: Example("e1", None), "Example 'e1': question must be a string, got NoneType"),  # type: ignore[arg-type]
    # With no usable id there is none to name.
    (lambda: Example(7, "q?"), "Example.id must be a string, got int"),  # type: ignore[arg-type]
    (lambda: Example("e1", "q?", answer=3), "Example 'e1': answer must be a string or None, got int"),
    (lambda: Context("d1", None), "Context.text must be a string, got NoneType"),  # type: ignore[arg-type]
    (lambda: Context("d1", "t", score="0.9"), "Context.score must be a number or None, got str"),
])
def test_a_mistyped_field_is_refused_by_name(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError) as error:
        build()
    assert str(error.value).startswith(message)


SAMPLES = "EvalConfig.bootstrap_samples must be a whole number of at least 0 (0: no intervals), got "
SEED = "EvalConfig.seed must be a whole number, so intervals are the same on every run, got "


@pytest.mark.parametrize(("fields", "message"), [
    ({"k": 0}, "EvalConfig.k must be a whole number of at least 1, got 0"),
    ({"k": True}, "EvalConfig.k must be a whole number of at least 1, got True"),
    ({"confidence": 1.0}, "EvalConfig.confidence must be a number in (0, 1), got 1.0"),
    # Used to fail later, at the first comparison, with a bare TypeError.
    ({"confidence": "0.9"}, "EvalConfig.confidence must be a number in (0, 1), got '0.9'"),
    # Used to be taken: no bootstrap round was run, and every interval silently became None.
    ({"bootstrap_samples": -5}, SAMPLES + "-5"),
    ({"bootstrap_samples": "x"}, SAMPLES + "'x'"),
    ({"bootstrap_samples": True}, SAMPLES + "True"),
    # Used to be taken: random.Random(None) seeds from the clock, a different interval on every run.
    ({"seed": None}, SEED + "None"),
    ({"seed": False}, SEED + "False"),
    ({"seed": 1.5}, SEED + "1.5"),
])
def test_a_config_that_cannot_score_is_refused(fields: dict, message: str) -> None:
    with pytest.raises(ValueError) as error:
        EvalConfig(**fields)
    assert str(error.value) == message


def test_zero_bootstrap_samples_means_no_intervals() -> None:
    text = "Returns are accepted within 30 days."
    # Groundedness 1 (the answer is the context verbatim) and 0 (nothing retrieved): mean 0.5 of 2.
    examples = [Example("a", "q?", [Context("d1", text)], text), Example("b", "q?", [], text)]
    with_intervals = evaluate(examples).aggregates["groundedness"]
    without = evaluate(examples, config=EvalConfig(bootstrap_samples=0)).aggregates["groundedness"]
    assert (with_intervals.mean, with_intervals.n) == (without.mean, without.n) == (0.5, 2)
    assert with_intervals.ci is not None and without.ci is None


def test_a_config_passed_as_the_judge_says_so() -> None:
    with pytest.raises(TypeError, match="pass the EvalConfig as config="):
        evaluate([Example("e1", "q?")], EvalConfig())  # type: ignore[arg-type]
