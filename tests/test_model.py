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
    (lambda: Example("e1", "q?", citations="d1"), "Example.citations must be an iterable of str, got str"),
    (lambda: Example("e1", "q?", relevant_ids="d1"), "Example.relevant_ids must be an iterable of str"),
    (lambda: Example("e1", "q?", contexts="some text"), "Example.contexts must be an iterable of Context"),
    (lambda: Example("e1", "q?", contexts=[{"id": "d1", "text": "t"}]),
     "Example.contexts[0] must be a Context, got dict"),
    (lambda: Example("e1", "q?", relevant_ids=["d1", 2]), "Example.relevant_ids[1] must be a str, got int"),
    (lambda: Example("e1", None), "Example.question must be a string, got NoneType"),  # type: ignore[arg-type]
    (lambda: Example(7, "q?"), "Example.id must be a string, got int"),  # type: ignore[arg-type]
    (lambda: Example("e1", "q?", answer=3), "Example.answer must be a string or None, got int"),
    (lambda: Context("d1", None), "Context.text must be a string, got NoneType"),  # type: ignore[arg-type]
    (lambda: Context("d1", "t", score="0.9"), "Context.score must be a number or None, got str"),
])
def test_a_mistyped_field_is_refused_by_name(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError) as error:
        build()
    assert str(error.value).startswith(message)


def test_a_config_that_cannot_score_is_refused() -> None:
    with pytest.raises(ValueError, match=r"EvalConfig\.k must be a whole number of at least 1, got 0"):
        EvalConfig(k=0)
    with pytest.raises(ValueError, match=r"EvalConfig\.confidence must be in \(0, 1\), got 1\.0"):
        EvalConfig(confidence=1.0)


def test_a_config_passed_as_the_judge_says_so() -> None:
    with pytest.raises(TypeError, match="pass the EvalConfig as config="):
        evaluate([Example("e1", "q?")], EvalConfig())  # type: ignore[arg-type]
