"""Mistakes of a notebook or an eval harness using ragmon as a library: each is told where it is."""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from typing import Any

import pytest

from ragmon import Context, Example, evaluate
from ragmon.calibrate import Labelled, calibrate
from ragmon.evaluation import aevaluate, example_claims
from ragmon.judges.base import JudgeError
from ragmon.model import Claim, ClaimVerdict

POLICY = (Context("d1", "Returns are accepted within 30 days of purchase."),)


@pytest.mark.parametrize(("fields", "message"), [
    # A CSV's empty relevant-ids cell split on "," gives [""]: taken, it marked an unanswerable question
    # answerable with a relevant id nothing can retrieve, and every retrieval metric read 0.
    ({"relevant_ids": [""]},  # "".split(",")
     "Example 'q1': relevant_ids[0] must not be empty or spaces, got '': no context can have that id (an "
     "empty cell split on ',' gives ['']: pass [] for none, None for unknown)"),
    # A citation of spaces supports nothing: citation accuracy read 0.5 for an answer citing d1 alone.
    ({"citations": ["d1", "  "]},
     "Example 'q1': citations[1] must not be empty or spaces, got '  ': no context can have that id (an "
     "empty cell split on ',' gives ['']: pass [] for none, None for unknown)"),
])
def test_a_blank_relevant_id_or_citation_is_refused_naming_the_example_and_its_position(
        fields: dict[str, list[str]], message: str) -> None:
    with pytest.raises(ValueError) as error:
        Example("q1", "How long do I have to return an item?", POLICY, "Returns are accepted within 30 days.",
                **fields)  # type: ignore[arg-type]
    assert str(error.value) == message


def test_a_blank_ground_truth_is_refused_rather_than_scored() -> None:
    # A pandas column of reference answers with empty cells read as "" (keep_default_na=False): every
    # answer scored answer_correctness 0 against it, the SQuAD F1 of a reference with no tokens.
    with pytest.raises(ValueError) as error:
        Example("q1", "How long?", POLICY, "Returns are accepted within 30 days.", ground_truth="")
    assert str(error.value) == ("Example 'q1': ground_truth must not be empty or spaces, got '': pass None "
                                "where no reference answer is known")


class FailsOnQ2:
    """A judge of one's own that fails on the second example: a bug of its own, or a JudgeError naming
    no example, as a judge wrapping a model's reply would raise them."""

    name = "flaky"

    def __init__(self, error: type[Exception], reason: str) -> None:
        self.error, self.reason = error, reason

    def settings(self) -> dict[str, str]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        if example.id == "q2":
            raise self.error(self.reason)
        return tuple(ClaimVerdict(claim, True, ("d1",)) for claim in claims)

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        await asyncio.sleep(0)
        return self.judge(example, claims)


EXAMPLES = [Example(f"q{i}", "How long?", POLICY, "Returns are accepted within 30 days.") for i in (1, 2, 3)]


@pytest.mark.parametrize(("error", "reason"), [(KeyError, "score"), (JudgeError, "no reply")])
def test_what_a_judge_raises_names_the_example_it_was_judging(error: type[Exception], reason: str) -> None:
    # "KeyError: 'score'" or "JudgeError: no reply" alone stopped a run of thousands saying nothing of the
    # example to reproduce it with. The exception is still the judge's own, for a caller's `except`.
    runs = (lambda: evaluate(EXAMPLES, FailsOnQ2(error, reason)),
            lambda: asyncio.run(aevaluate(EXAMPLES, FailsOnQ2(error, reason), concurrency=1)))
    for run in runs:
        with pytest.raises(error) as raised:
            run()
        assert raised.value.args == (reason,)
        assert raised.value.__notes__ == ["(raised by judge 'flaky' on example 'q2')"]


class GeneratedVerdicts:
    """A judge yielding its verdicts, as `Judge.judge -> Iterable` invites; slow, and failing on q2."""

    name = "gen"

    def settings(self) -> dict[str, str]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> Iterator[ClaimVerdict]:
        for claim in claims:
            time.sleep(0.05)
            if example.id == "q2":
                raise KeyError("score")
            yield ClaimVerdict(claim, True, ("d1",))


class LazyVerdicts(GeneratedVerdicts):
    """The same verdicts from an iterable object that is no iterator: drawn only when iterated."""

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> Iterable[ClaimVerdict]:
        outer = super()

        class Lazy:
            def __iter__(self) -> Iterator[ClaimVerdict]:
                return outer.judge(example, claims)

        return Lazy()


@pytest.mark.parametrize("judge", [GeneratedVerdicts(), LazyVerdicts()], ids=["generator", "lazy iterable"])
def test_a_lazy_judges_error_names_the_example_and_its_time_is_counted(judge: GeneratedVerdicts) -> None:
    # Drawn only when the verdicts were checked, outside the judge's call: the KeyError named no example,
    # and calibrate timed each example at a microsecond (the 0.05 s per claim spent after its clock stopped).
    with pytest.raises(KeyError) as raised:
        evaluate(EXAMPLES, judge)
    assert raised.value.__notes__ == ["(raised by judge 'gen' on example 'q2')"]
    example = EXAMPLES[0]
    claims = example_claims(example)
    assert len(claims) == 1
    calibration = calibrate(judge, [Labelled(example, claims, (False,), False)])
    assert calibration.seconds >= 0.05  # its one claim, 0.05 s


class Returns:
    """A judge of one's own returning what `make` builds of the claims, not a tuple or list of verdicts."""

    name = "mine"

    def __init__(self, make: Callable[[tuple[Claim, ...]], object]) -> None:
        self.make = make

    def settings(self) -> dict[str, str]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> object:
        return self.make(claims)

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> object:
        return self.make(claims)


def _refusal(run: Callable[[], object]) -> str:
    with pytest.raises(JudgeError) as raised:
        run()
    return str(raised.value)


FIRST = [Labelled(EXAMPLES[0], example_claims(EXAMPLES[0]), (False,), False)]
TOLD: dict[str, Callable[[Returns], str]] = {
    "evaluate": lambda judge: _refusal(lambda: evaluate(EXAMPLES, judge)),
    "aevaluate": lambda judge: _refusal(lambda: asyncio.run(aevaluate(EXAMPLES, judge, concurrency=1))),
    "calibrate": lambda judge: _refusal(lambda: calibrate(judge, FIRST)),
    "calibrate skipping": lambda judge: dict(calibrate(judge, FIRST, skip_errors=True).skipped)["q1"],
}


@pytest.mark.parametrize("way", TOLD)
@pytest.mark.parametrize(("make", "returned", "item"), [
    (lambda claims: {claim: ClaimVerdict(claim, True, ("d1",)) for claim in claims}, "dict", "Claim"),
    (lambda claims: "yes", "str", "str"),
    (lambda claims: b"yes", "bytes", "int"),
    (lambda claims: (claim.text for claim in claims), "generator", "str"),
], ids=["dict", "str", "bytes", "generator"])
def test_a_judge_returning_no_verdicts_is_told_the_type_it_returned(
        make: Callable[[tuple[Claim, ...]], object], returned: str, item: str, way: str) -> None:
    # Drawn into a tuple so that a lazy judge's error names its example, every one was told it "returned
    # tuple", which it never did: the dict of claim to verdict, the reply's text, the generator went unnamed.
    assert TOLD[way](Returns(make)) == (f"judge 'mine' returned {returned} for example 'q1', not an iterable "
                                        f"of ClaimVerdict: item 0 is {item}")


def test_a_skipped_examples_reason_is_the_judges_alone() -> None:
    report = evaluate(EXAMPLES, FailsOnQ2(JudgeError, "no reply"), skip_judge_errors=True)
    assert report.skipped == (("q2", "no reply"),)
    assert [result.example.id for result in report.results] == ["q1", "q3"]


class PromptedJudge:
    """An LLM judge of one's own, recording its prompt among its settings so a figure can be reproduced."""

    name = "my-llm"

    def settings(self) -> dict[str, str]:
        return {"prompt": "Decide. " * 625}  # 5,000 characters

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return tuple(ClaimVerdict(claim, True) for claim in claims)


def test_a_report_repr_cuts_a_long_judge_setting() -> None:
    # The report's repr printed the judge's settings whole: a 5,000-character prompt in every notebook
    # cell and failed assertion showing the report.
    shown = repr(evaluate(EXAMPLES, PromptedJudge()))
    # Its first 60 characters: "Decide. " 7 times (56), then "Deci".
    assert shown.startswith("Report(judge={'name': 'my-llm', 'prompt': 'Decide. Decide. Decide. Decide. "
                            "Decide. Decide. Decide. Deci'... (5,000 characters)}, k=5, results=<3 results>")


class AsyncNamedJudge:
    """A judge calling an async LLM client, its coroutine named `judge` rather than `ajudge`."""

    name = "my-llm"

    def settings(self) -> dict[str, str]:
        return {}

    async def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return tuple(ClaimVerdict(claim, True) for claim in claims)


Verdicts = tuple[ClaimVerdict, ...]


class Retried:
    """A retry decorator written as a class, wrapping an async LLM call: its instances are called as
    functions, but run an `async def`."""

    def __init__(self, call: Callable[[Example, tuple[Claim, ...]], Awaitable[Verdicts]]) -> None:
        self.call = call

    async def __call__(self, example: Example, claims: tuple[Claim, ...]) -> Verdicts:
        return await self.call(example, claims)


class RetriedJudge:
    """A judge whose `judge` is its async LLM call behind a `Retried`."""

    name = "my-llm"

    def __init__(self) -> None:
        self.judge = Retried(self.ask)

    def settings(self) -> dict[str, str]:
        return {}

    async def ask(self, example: Example, claims: tuple[Claim, ...]) -> Verdicts:
        return tuple(ClaimVerdict(claim, True) for claim in claims)


@pytest.mark.parametrize("judge", [AsyncNamedJudge(), RetriedJudge()], ids=["async def", "Retried"])
def test_a_coroutine_named_judge_is_refused_saying_to_name_it_ajudge(judge: object) -> None:
    # Called and never awaited, it "returned coroutine" for every example: with skip_judge_errors a run
    # came back with all three skipped and every figure undefined.
    for options in ({}, {"skip_judge_errors": True}):
        with pytest.raises(TypeError) as error:
            evaluate(EXAMPLES, judge, **options)  # type: ignore[arg-type]
        assert str(error.value) == (f"judge {type(judge).__name__}: its judge(example, claims) is an async "
                                    "def, which is called here, not awaited: name it ajudge, which "
                                    "aevaluate and acalibrate await")


class LoggedAsyncJudge:
    """A judge whose async LLM call is behind a plain logging wrapper of one's own, which returns the
    coroutine from a plain call: no `async def` for the check before judging to see."""

    name = "my-llm"

    def __init__(self) -> None:
        self.started: list[Coroutine[Any, Any, Verdicts]] = []

    def settings(self) -> dict[str, str]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> object:  # the wrapper
        self.started.append(self.ask(claims))
        return self.started[-1]

    async def ask(self, claims: tuple[Claim, ...]) -> Verdicts:
        return tuple(ClaimVerdict(claim, True) for claim in claims)


@pytest.mark.parametrize("run", [
    lambda judge: evaluate(EXAMPLES, judge),
    lambda judge: evaluate(EXAMPLES, judge, skip_judge_errors=True),
    lambda judge: calibrate(judge, FIRST),
    lambda judge: calibrate(judge, FIRST, skip_errors=True),
], ids=["evaluate", "evaluate skipping", "calibrate", "calibrate skipping"])
def test_a_judge_returning_a_coroutine_from_a_plain_call_is_refused_not_skipped(
        run: Callable[[LoggedAsyncJudge], object]) -> None:
    # It was a JudgeError, "returned coroutine": skipped, every example of the run, with Python's
    # "coroutine was never awaited" warning for each.
    judge = LoggedAsyncJudge()
    with pytest.raises(TypeError) as error:
        run(judge)
    assert str(error.value) == ("judge 'my-llm' returned coroutine for example 'q1', which ragmon does not "
                                "await: a judge returns its verdicts from judge(example, claims), or from "
                                "the coroutine ajudge, which aevaluate and acalibrate await")
    assert [inspect.getcoroutinestate(call) for call in judge.started] == [inspect.CORO_CLOSED]


async def update_bar(done: int, total: int) -> None:
    """A notebook widget's async update, which a progress lambda calls."""


@pytest.mark.parametrize("run", [
    lambda progress: evaluate(EXAMPLES, CountingJudge(), progress=progress),
    lambda progress: asyncio.run(aevaluate(EXAMPLES, CountingJudge(), progress=progress)),
], ids=["evaluate", "aevaluate"])
def test_a_progress_returning_a_coroutine_is_refused_at_its_first_call(
        run: Callable[[Callable[[int, int], object]], object]) -> None:
    # A lambda around an async def is no coroutine function to check before judging: its coroutines
    # were dropped, the bar showed nothing, and Python warned "never awaited" once per example.
    started: list[Coroutine[Any, Any, None]] = []
    with pytest.raises(TypeError) as error:
        run(lambda done, total: started.append(update_bar(done, total)) or started[-1])
    assert str(error.value) == ("progress must be a function called as progress(done, total), but it "
                                "returned coroutine, which is called, not awaited: declare the function it "
                                "runs with `def`, not `async def`")
    # One for evaluate; under aevaluate each example already judged when the first was refused called it.
    assert {inspect.getcoroutinestate(call) for call in started} == {inspect.CORO_CLOSED}


class NotebookBar:
    """A progress bar of one's own for a notebook's event loop, updating its widget from an
    `async def __call__`."""

    async def __call__(self, done: int, total: int) -> None:
        await asyncio.sleep(0)


async def show_in(widget: str, done: int, total: int) -> None:
    """An async update of a named widget, given to `progress` with the widget bound by functools.partial."""


class CountingJudge:
    """Counts the examples it is asked about: none may be, when an argument is refused."""

    name = "counting"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def settings(self) -> dict[str, str]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        self.asked.append(example.id)
        return tuple(ClaimVerdict(claim, True, ("d1",)) for claim in claims)

    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        return self.judge(example, claims)


@pytest.mark.parametrize(("progress", "coroutine"), [
    # Taken: every example was judged, the bar showed nothing, and Python warned "coroutine
    # 'NotebookBar.__call__' was never awaited" three times.
    (NotebookBar(), "NotebookBar.__call__"),
    (functools.partial(NotebookBar()), "NotebookBar.__call__"),
    # Refused already, but as "the coroutine function partial", naming no function of the user's.
    (functools.partial(show_in, "eval"), "show_in"),
], ids=["instance", "partial of an instance", "partial of an async def"])
def test_a_progress_object_running_an_async_def_is_refused_before_any_judging(
        progress: object, coroutine: str) -> None:
    for run in (lambda judge: evaluate(EXAMPLES, judge, progress=progress),  # type: ignore[arg-type]
                lambda judge: asyncio.run(aevaluate(EXAMPLES, judge, progress=progress))):  # type: ignore[arg-type]
        judge = CountingJudge()
        with pytest.raises(TypeError) as error:
            run(judge)
        assert str(error.value) == ("progress must be a function called as progress(done, total), got the "
                                    f"coroutine function {coroutine}: it is called, not awaited, so declare "
                                    "it with `def`, not `async def`")
        assert judge.asked == []


class Counted:
    """A judge of one's own that counts its calls: a wrong argument must cost none."""

    name = "counted"

    def __init__(self) -> None:
        self.calls = 0

    def settings(self) -> dict[str, str]:
        return {}

    def judge(self, example: Example, claims: tuple[Claim, ...]) -> tuple[ClaimVerdict, ...]:
        self.calls += 1
        return tuple(ClaimVerdict(claim, True) for claim in claims)


@pytest.mark.parametrize(("arguments", "error", "message"), [
    # Examples passed as they are failed on their first attribute: "'Example' object has no attribute
    # 'example'", after the judge had been called on none of them.
    ({"items": EXAMPLES}, TypeError,
     "items[0] must be a ragmon.calibrate.Labelled, got Example: read a labelled file with "
     "load_labelled(paths), or an Example whose extra holds its labels with labelled(example, source)"),
    ({"items": None}, TypeError,
     "items must be a sequence of ragmon.calibrate.Labelled, got NoneType: read a labelled file with "
     "load_labelled(paths)"),
    ({"items": [*FIRST, {"id": "q2"}]}, TypeError,
     "items[1] must be a ragmon.calibrate.Labelled, got dict: read a labelled file with "
     "load_labelled(paths), or an Example whose extra holds its labels with labelled(example, source)"),
    # The string "no" is truthy: it skipped.
    ({"skip_errors": "no"}, TypeError, "skip_errors must be True or False, got 'no'"),
    # Checked for the Claude judge alone, which runs calls at once; any value passed with a judge called
    # in turn.
    ({"concurrency": "4"}, TypeError, "concurrency must be a whole number of at least 1, got '4'"),
    ({"concurrency": 0}, ValueError, "concurrency must be a whole number of at least 1, got 0"),
    ({"prices": {"input": 3.0}}, TypeError, "prices must be a ragmon.budget.Prices or None, got dict"),
])
def test_a_wrong_argument_to_calibrate_is_named_before_any_judge_call(
        arguments: dict[str, Any], error: type[Exception], message: str) -> None:
    judge = Counted()
    given = {"items": FIRST, **arguments}
    items = given.pop("items")
    with pytest.raises(error) as raised:
        calibrate(judge, items, **given)
    assert str(raised.value) == message
    assert judge.calls == 0
    calibrate(judge, FIRST)  # the same judge and items, rightly passed, are judged
    assert judge.calls == 1
