"""The data model refuses mistyped fields when built, naming them, and takes lists for tuples and sets."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
from decimal import Decimal
from enum import Enum
from pathlib import Path

import numpy as np
import pytest

import ragmon.errors
import ragmon.judges.base
import ragmon.model
from ragmon import Aggregate, Context, EvalConfig, Example, evaluate
from ragmon.model import Claim, ClaimVerdict, ExampleResult


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
    # Used to be taken: calibration then failed reading `extra.get("labels")`, far from here.
    (lambda: Example("e1", "q?", extra=["labels"]), "Example 'e1': extra must be a mapping, got list"),  # type: ignore[arg-type]
])
def test_a_mistyped_field_is_refused_by_name(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError) as error:
        build()
    assert str(error.value).startswith(message)


class Document:
    """A LangChain Document's shape, without LangChain."""

    def __init__(self, page_content: str, metadata: dict[str, str]) -> None:
        self.page_content = page_content
        self.metadata = metadata


@pytest.mark.parametrize(("context", "message"), [
    ("Refunds take 30 days.", "contexts[0] must be a Context, got str: build it as Context(id, text), the id "
                              "the one relevant_ids and citations name"),
    ({"id": "d1", "text": "t"}, "contexts[0] must be a Context, got dict: build it as Context(id, text, "
                                "score) from its fields"),
    (Document("t", {"source": "faq.md"}), "contexts[0] must be a Context, got Document: a LangChain Document "
                                          "is Context(doc.metadata['source'], doc.page_content)"),
])
def test_what_a_retriever_returns_is_told_how_to_become_a_context(context: object, message: str) -> None:
    # ragmon.instrument takes these as they are; an Example takes Context objects, and says how to make one.
    with pytest.raises(TypeError) as error:
        Example("q", "q?", contexts=[context])  # type: ignore[list-item]
    assert str(error.value) == f"Example 'q': {message}"


SAMPLES = "EvalConfig.bootstrap_samples must be 0 (no intervals) or a whole number of at least 200, got "
SEED = "EvalConfig.seed must be a whole number, so intervals are the same on every run, got "


@pytest.mark.parametrize(("fields", "message"), [
    ({"k": 0}, "EvalConfig.k must be a whole number of at least 1, got 0"),
    ({"confidence": 1.0}, "EvalConfig.confidence must be a number in (0, 1), got 1.0"),
    # Used to be taken: no bootstrap round was run, and every interval silently became None.
    ({"bootstrap_samples": -5}, SAMPLES + "-5"),
    # Used to be taken: 2 rounds gave a "95% interval" of (0.504, 0.663) around a mean of 0.5, 1 a point.
    ({"bootstrap_samples": 1}, SAMPLES + "1"),
    ({"bootstrap_samples": 2}, SAMPLES + "2"),
    ({"bootstrap_samples": 199}, SAMPLES + "199"),
])
def test_a_config_that_cannot_score_is_refused(fields: dict, message: str) -> None:
    with pytest.raises(ValueError) as error:
        EvalConfig(**fields)
    assert str(error.value) == message


@pytest.mark.parametrize(("fields", "message"), [
    # The README: "a field of the wrong type ... is a TypeError". These were ValueErrors.
    ({"k": "5"}, "EvalConfig.k must be a whole number of at least 1, got '5'"),
    ({"k": 5.0}, "EvalConfig.k must be a whole number of at least 1, got 5.0"),
    ({"k": True}, "EvalConfig.k must be a whole number of at least 1, got True"),
    # Used to fail later, at the first comparison, with a bare TypeError.
    ({"confidence": "0.9"}, "EvalConfig.confidence must be a number in (0, 1), got '0.9'"),
    ({"confidence": True}, "EvalConfig.confidence must be a number in (0, 1), got True"),
    ({"bootstrap_samples": "x"}, SAMPLES + "'x'"),
    ({"bootstrap_samples": True}, SAMPLES + "True"),
    # Used to be taken: random.Random(None) seeds from the clock, a different interval on every run.
    ({"seed": None}, SEED + "None"),
    ({"seed": False}, SEED + "False"),
    ({"seed": 1.5}, SEED + "1.5"),
    ({"seed": "7"}, SEED + "'7'"),
])
def test_a_config_field_of_the_wrong_type_is_a_type_error(fields: dict, message: str) -> None:
    with pytest.raises(TypeError) as error:
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


def test_a_score_from_a_vector_store_is_taken_as_a_float() -> None:
    # FAISS and numpy hand back float32, which is no Python float: it used to be refused as no number.
    context = Context("d1", "t", np.float32(0.25))
    assert context.score == 0.25 and type(context.score) is float
    assert type(Context("d1", "t", np.float64(0.5)).score) is float
    assert Context("d1", "t", 3).score == 3  # a plain int or float is kept as given


def test_a_float_score_is_kept_without_the_checks_other_numbers_need(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every document extraction reads has a float score: checked against numbers.Real and Decimal (two
    # abstract classes' instance checks), its Context had taken nearly twice as long to build (8 us
    # against 4.5 us, same minutes). A float score is stored as it is, NaN and infinities as None.
    checked: list[object] = []
    real = ragmon.model._real
    monkeypatch.setattr(ragmon.model, "_real", lambda value: (checked.append(value), real(value))[1])
    score = 0.25
    assert Context("d1", "t", score).score is score
    assert Context("d1", "t", float("nan")).score is None
    assert Context("d1", "t", float("-inf")).score is None
    assert checked == []
    assert Context("d1", "t", np.float32(0.25)).score == 0.25
    assert len(checked) == 1


def test_a_users_type_checker_takes_the_lists_an_example_takes(tmp_path: Path) -> None:
    # The fields are declared as tuples and a frozenset, so mypy refused the lists the README and the
    # docstring say are taken; the wrong type for a field is still an error.
    package = tmp_path / "ragmon"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "py.typed").write_text("")
    shutil.copy(ragmon.model.__file__, package / "model.py")
    shutil.copy(ragmon.errors.__file__, package / "errors.py")
    (package / "judges").mkdir()
    (package / "judges" / "__init__.py").write_text("")
    shutil.copy(ragmon.judges.base.__file__, package / "judges" / "base.py")
    # As a user's mypy reads an installed package: its own modules' errors are not the user's, and the
    # modules model.py imports on first use (the JSON report's) are left out of this copy.
    (tmp_path / "mypy.ini").write_text("[mypy]\n[mypy-ragmon.*]\nfollow_imports = silent\n"
                                       "ignore_missing_imports = True\n")
    (tmp_path / "user.py").write_text(
        "from ragmon.model import Context, Example\n"
        "Example('q1', 'q?', [Context('d1', 't')], 'a.', relevant_ids=['d1'], citations=['d1'])\n"
        "Example(7, 'q?')\n"
        # What the checks take of numpy's, as a vector store and a config table give them: mypy refused them.
        "import numpy as np\n"
        "from ragmon.model import EvalConfig\n"
        "Context('d1', 't', np.float32(0.5))\n"
        "EvalConfig(k=np.int64(3), bootstrap_samples=np.int64(500), seed=np.int64(7))\n"
        "EvalConfig(confidence=np.float32(0.9))\n"
        # A judge of one's own returning its verdicts as a list, which evaluate and aevaluate take.
        "from ragmon.judges.base import AsyncJudge, Judge\n"
        "from ragmon.model import Claim, ClaimVerdict\n"
        "class ListJudge:\n"
        "    name = 'mine'\n"
        "    def settings(self) -> dict[str, str]:\n"
        "        return {}\n"
        "    def judge(self, example: Example, claims: tuple[Claim, ...]) -> list[ClaimVerdict]:\n"
        "        return [ClaimVerdict(claim, True) for claim in claims]\n"
        "    async def ajudge(self, example: Example, claims: tuple[Claim, ...]) -> list[ClaimVerdict]:\n"
        "        return self.judge(example, claims)\n"
        "called: Judge = ListJudge()\n"
        "awaited: AsyncJudge = ListJudge()\n")
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"), "user.py"]
    checked = subprocess.run(command, cwd=tmp_path, env={"MYPYPATH": str(tmp_path)}, capture_output=True,
                             text=True, check=False)
    assert checked.stdout.splitlines() == [
        'user.py:3: error: Argument 1 to "Example" has incompatible type "int"; expected "str"  [arg-type]',
        "Found 1 error in 1 file (checked 1 source file)"]


def test_zero_bootstrap_samples_means_no_interval_for_a_constant_metric_either() -> None:
    text = "Returns are accepted within 30 days."
    # Both answers are their context verbatim: groundedness 1 and 1. The constant column used to get the
    # interval (1.0, 1.0) that samples=0 had asked not to compute.
    examples = [Example(name, "q?", [Context("d1", text)], text) for name in ("a", "b")]
    report = evaluate(examples, config=EvalConfig(bootstrap_samples=0))
    assert report.aggregates["groundedness"] == Aggregate(1.0, 2, None)


def test_a_report_repr_counts_the_examples_rather_than_printing_them() -> None:
    # A notebook cell or failed assertion showing a report of 10,000 examples used to print every
    # example's contexts and verdicts: megabytes.
    text = "Returns are accepted within 30 days."
    examples = [Example("a", "q?", [Context("d1", text)], text), Example("b", "q?", [], text)]
    shown = repr(evaluate(examples, config=EvalConfig(bootstrap_samples=0)))
    assert shown.startswith("Report(judge={'name': 'lexical', 'threshold': 0.56}, k=5, results=<2 results>, "
                            "aggregates={'hit_rate': Aggregate(mean=None, n=0, ci=None), ")
    assert "'groundedness': Aggregate(mean=0.5, n=2, ci=None)" in shown
    assert shown.endswith(", skipped=<0 skipped>, "
                          "config=EvalConfig(k=5, bootstrap_samples=0, confidence=0.95, seed=0), "
                          "warnings=<0 warnings>)")
    assert "Returns" not in shown


def test_a_config_passed_as_the_judge_says_so() -> None:
    with pytest.raises(TypeError, match="pass the EvalConfig as config="):
        evaluate([Example("e1", "q?")], EvalConfig())  # type: ignore[arg-type]


def test_a_context_repr_shows_the_beginning_of_a_long_text_and_its_length() -> None:
    # A 400 KB manual made the repr of its example, and of every result holding it, 400 KB: a notebook
    # cell flooded. Short texts read as before; equality and hashing still use the whole text.
    manual = Context("manual", "Section 1. Safety. " * 21_000, 0.5)
    # The first 60 characters: three times the 19 of "Section 1. Safety. ", and "Sec".
    assert repr(manual) == ("Context(id='manual', text='Section 1. Safety. Section 1. Safety. Section 1. "
                            "Safety. Sec'... (399,000 characters), score=0.5)")
    assert repr(Context("d1", "The warranty lasts 2 years.")) == \
        "Context(id='d1', text='The warranty lasts 2 years.', score=None)"
    cut = Context("manual", "Section 1. Safety. " * 20_999 + "Section 1. Safety! ", 0.5)
    assert manual != cut and repr(manual)[:80] == repr(cut)[:80]
    assert manual == Context("manual", "Section 1. Safety. " * 21_000, 0.5)
    assert hash(manual) == hash(Context("manual", "Section 1. Safety. " * 21_000, 0.5))

    text = "The warranty lasts 2 years."
    (result,) = evaluate([Example("q1", "How long?", [manual, Context("d1", text)], text)]).results
    assert len(repr(result)) < 2_000


def test_an_example_repr_cuts_every_long_text_not_only_a_contexts() -> None:
    # A 1 MB answer (a runaway generation), a whole document pasted as the ground truth, or a big field a
    # dataset carried along in `extra`, each printed whole: a megabyte in a log line or a failed assertion.
    example = Example("q1", "What colour is the sky?", [Context("d1", "The sky is blue.")],
                      "The sky is blue. " * 60_000, ground_truth="Blue. " * 200_000,
                      extra={"html": "<p>" * 100_000})
    # 60 characters each: three times the 17 of "The sky is blue. " and "The sky i"; ten times "Blue. ";
    # twenty times "<p>".
    assert repr(example) == (
        "Example(id='q1', question='What colour is the sky?', "
        "contexts=(Context(id='d1', text='The sky is blue.', score=None),), "
        "answer='The sky is blue. The sky is blue. The sky is blue. The sky i'... (1,020,000 characters), "
        "relevant_ids=None, citations=None, "
        "ground_truth='Blue. Blue. Blue. Blue. Blue. Blue. Blue. Blue. Blue. Blue. '... "
        "(1,200,000 characters), "
        "category=None, pipeline=None, "
        "extra={'html': '<p><p><p><p><p><p><p><p><p><p><p><p><p><p><p><p><p><p><p><p>'... (300,000 "
        "characters)})")


def test_a_result_repr_shows_the_first_verdicts_and_counts_the_others() -> None:
    # An answer of 1,000 sentences gave a result whose repr listed 1,000 verdicts: ~130,000 characters.
    answer = "The sky is blue. " * 1_000
    (result,) = evaluate([Example("q1", "q?", [Context("d1", "The sky is blue.")], answer)]).results
    assert len(result.verdicts) == 1_000
    shown = repr(result)
    assert shown.count("ClaimVerdict(") == 20
    assert ("ClaimVerdict(claim=Claim(text='The sky is blue.', start=0, end=16), supported=True, "
            "supporting_ids=('d1',), reason=None), ") in shown
    assert ", ... (980 more)), relevant_not_retrieved=(), retrieved_unused=())" in shown
    assert "answer='The sky is blue. The sky is blue. The sky is blue. The sky i'... (17,000 characters)" \
        in shown
    assert len(shown) < 5_000
    # Short ones read as Python's own repr: a one-item tuple keeps its comma, an empty set is frozenset().
    assert repr(Example("q2", "q?", [Context("d1", "t")], relevant_ids=[])) == (
        "Example(id='q2', question='q?', contexts=(Context(id='d1', text='t', score=None),), answer=None, "
        "relevant_ids=frozenset(), citations=None, ground_truth=None, category=None, pipeline=None, "
        "extra={})")


def test_bytes_carried_in_extra_are_shown_cut_to_their_start_and_size() -> None:
    # A PDF of 1 MB carried along in `extra` made the example's repr a megabyte; a short value reads as
    # Python's own repr.
    example = Example("a", "q?", extra={"pdf": b"%PDF-1.7" + b"x" * 1_000_000, "tag": b"ok"})
    assert repr(example).endswith(
        "extra={'pdf': b'%PDF-1.7" + "x" * 52 + "'... (1,000,008 bytes), 'tag': b'ok'})")


def test_a_report_is_hashable_as_a_frozen_dataclass_promises() -> None:
    # Its judge settings and aggregates, dicts, made hash() raise "unhashable type: 'dict'": no report as
    # a cache key (functools.cache on a function rendering one), no set of two runs' reports.
    text = "The warranty lasts 2 years."
    examples = [Example("a", "q?", [Context("d1", text)], text)]
    first, again = (evaluate(examples, config=EvalConfig(bootstrap_samples=0)) for _ in range(2))
    other = evaluate(examples, config=EvalConfig(k=3, bootstrap_samples=0))
    assert hash(first) == hash(again) and len({first, again, other}) == 2


QRELS = {"doc-1": 1, "doc-2": 0, "doc-3": 0}
"""BEIR and TREC qrels of one question: doc-1 judged relevant, doc-2 and doc-3 judged not relevant."""


@pytest.mark.parametrize(("fields", "message"), [
    # Used to be read as its keys: doc-2 and doc-3, graded 0, counted as relevant, and precision@3 of a
    # ranking holding doc-1 last was 1.0 where it is 1/3.
    ({"relevant_ids": QRELS},
     "Example 'q1': relevant_ids must be an iterable of str, got dict: its keys would all count as relevant, "
     "whatever their grades; from qrels {id: grade} pass [d for d, g in qrels.items() if g > 0]"),
    ({"citations": {"doc-1": 2}},
     "Example 'q1': citations must be an iterable of str, got dict: its keys would all count as cited; pass "
     "the cited ids as a list, in the answer's order"),
    ({"contexts": {"doc-1": "The warranty lasts 2 years."}},
     "Example 'q1': contexts must be an iterable of Context, got dict: for {id: text} pass "
     "[Context(id, text) for id, text in docs.items()]"),
])
def test_a_mapping_of_ids_is_refused_saying_what_to_pass(fields: dict, message: str) -> None:
    with pytest.raises(TypeError) as error:
        Example("q1", "How long is the warranty?", **fields)
    assert str(error.value) == message
    # As the hint says: only doc-1 is relevant.
    relevant = Example("q1", "q?", relevant_ids=[d for d, g in QRELS.items() if g > 0]).relevant_ids
    assert relevant == frozenset({"doc-1"})


def test_whole_numbers_of_numpys_are_taken_and_stored_as_ints() -> None:
    # A sweep over np.arange or a pandas config table gives int64: EvalConfig refused k=np.int64(3) while
    # aevaluate took concurrency=np.int64(3).
    config = EvalConfig(k=np.int64(3), bootstrap_samples=np.int64(500), seed=np.int64(7))
    assert (config.k, config.bootstrap_samples, config.seed) == (3, 500, 7)
    assert all(type(value) is int for value in (config.k, config.bootstrap_samples, config.seed))
    # The seed reaches random.Random, which refuses an int64: the intervals are those of the int seed.
    text = "Returns are accepted within 30 days."
    examples = [Example("a", "q?", [Context("d1", text)], text), Example("b", "q?", [], text)]
    assert evaluate(examples, config=config).aggregates == \
        evaluate(examples, config=EvalConfig(k=3, bootstrap_samples=500, seed=7)).aggregates
    with pytest.raises(TypeError) as error:  # a bool, numpy's too, is no count: the wrong type
        EvalConfig(k=np.bool_(True))  # type: ignore[arg-type]
    assert str(error.value) == "EvalConfig.k must be a whole number of at least 1, got np.True_"


def test_numpys_strings_are_stored_as_strs_in_reprs_and_errors() -> None:
    # A row of a numpy array (a DataFrame's .to_numpy()) gives numpy's str_, a str subclass: stored as it
    # came, a repr read Example(id=np.str_('q1'), ...) and an error "Example np.str_('q1'): ...".
    row = np.array(["q1", "How long?", "d1", "The warranty lasts 2 years.", "warranty", "shop"])
    example = Example(row[0], row[1], [Context(row[2], row[3])], row[3], relevant_ids=row[2:3],
                      citations=row[2:3], ground_truth=row[3], category=row[4], pipeline=row[5])
    assert repr(example) == (
        "Example(id='q1', question='How long?', contexts=(Context(id='d1', text='The warranty lasts 2 "
        "years.', score=None),), answer='The warranty lasts 2 years.', relevant_ids=frozenset({'d1'}), "
        "citations=('d1',), ground_truth='The warranty lasts 2 years.', category='warranty', "
        "pipeline='shop', extra={})")
    (context,) = example.contexts or ()
    texts = (example.id, example.question, example.answer, example.ground_truth, example.category,
             example.pipeline, context.id, context.text, *(example.relevant_ids or ()),
             *(example.citations or ()))
    assert [type(text) for text in texts] == [str] * 10
    with pytest.raises(TypeError) as error:
        Example(row[0], "q?", answer=3)  # type: ignore[arg-type]
    assert str(error.value) == "Example 'q1': answer must be a string or None, got int"
    # A str enum's text, not its name: str() of it reads "Tier.GOLD".
    assert Example("q1", "q?", category=Tier.GOLD).category == "gold"
    # A str and a tuple of strs are kept as given, not copied.
    question, cited = "How long?", ("d1",)
    plain = Example("q1", question, citations=cited)
    assert plain.question is question and plain.citations is cited


class Tier(str, Enum):  # noqa: UP042 (as code from before StrEnum defines one, and str() names it)
    GOLD = "gold"


def test_the_fewest_bootstrap_rounds_allowed_give_an_interval() -> None:
    text = "Returns are accepted within 30 days."
    # Groundedness 1 (the answer is the context verbatim) and 0 (nothing retrieved), three times each:
    # mean 0.5, and the interval of 200 rounds holds it.
    examples = [Example(f"e{i}", "q?", [Context("d1", text)] if i % 2 else [], text) for i in range(6)]
    groundedness = evaluate(examples, config=EvalConfig(bootstrap_samples=200)).aggregates["groundedness"]
    assert groundedness.mean == 0.5 and groundedness.ci is not None
    assert groundedness.ci[0] < 0.5 < groundedness.ci[1]
    assert groundedness.rounds == 200


def test_an_empty_example_id_is_refused() -> None:
    # A file's empty id was refused, the API's taken: its results were named '' in every report.
    for blank in ("", "  "):
        with pytest.raises(ValueError, match=r"^Example\.id must not be empty or spaces"):
            Example(id=blank, question="q")


@pytest.mark.parametrize("blank", ["", "  ", "\t"])
def test_a_context_with_an_empty_id_is_refused_naming_the_example_and_its_position(blank: str) -> None:
    # Context("") was taken: a verdict names contexts by id, so six contexts all named "" were one, and
    # the one supporting the claim made context utilisation 6/6 where 1 of 6 supported it.
    contexts = [Context("d1", "Gift wrapping is free."), Context(blank, "Returns take 30 days.")]
    with pytest.raises(ValueError) as error:
        Example("q7", "q?", contexts=contexts)
    assert str(error.value) == (f"Example 'q7': contexts[1].id must not be empty or spaces, got {blank!r}: a "
                                "verdict, a citation and relevant_ids name a context by its id")
    # A Context alone may have one (the Claude judge sizes its prompt's markup with Context("", "")).
    assert Context("", "t").id == ""


def test_a_numpy_confidence_is_taken_as_a_float() -> None:
    # Refused as "no number in (0, 1)" for float32; float64 was kept as numpy's, unlike every other field.
    for value in (np.float32(0.5), np.float64(0.9)):
        config = EvalConfig(confidence=value)  # type: ignore[arg-type]
        assert type(config.confidence) is float and config.confidence == float(value)


def test_a_float32_confidence_is_the_level_written_not_its_binary_neighbour() -> None:
    # np.float32(0.95) is 0.949999988079071 as a float: kept so, the report's level read that, and one
    # grounded answer's interval was (0.0250000059604645, 1), not the (0.025, 1) the README gives at 0.95.
    config = EvalConfig(confidence=np.float32(0.95))  # type: ignore[arg-type]
    assert config.confidence == 0.95
    text = "Returns are accepted within 30 days."
    report = evaluate([Example("a", "q?", [Context("d1", text)], text)], config=config)
    # One success in one trial: the lower bound p has p ** 1 = (1 - 0.95) / 2.
    assert report.aggregates["groundedness"].ci == (0.025, 1.0)


def test_extra_is_the_examples_own_not_the_callers_dict() -> None:
    fields = {"source": "faq"}
    example = Example("a", "q", extra=fields)
    fields["source"] = "changed later"
    assert example.extra == {"source": "faq"}


def test_a_result_is_hashable_as_a_frozen_dataclass_promises() -> None:
    # Its metrics dict made hash() raise "unhashable type: 'dict'": no set of results, no result as a key.
    example = Example("q1", "q?", [Context("d", "x")], "a.")
    verdict = ClaimVerdict(Claim("a.", 0, 2), True, ("d",))
    first, again = (ExampleResult(example, "lexical", {"groundedness": 1.0}, (verdict,)) for _ in range(2))
    other = ExampleResult(example, "lexical", {"groundedness": 0.0}, (verdict,))
    assert hash(first) == hash(again) and len({first, again, other}) == 2


@pytest.mark.parametrize(("field", "kind"), [
    ("answer", "a string or None"), ("ground_truth", "a string or None"),
    ("contexts", "an iterable of Context"), ("citations", "an iterable of str")])
def test_nan_for_a_missing_cell_is_told_to_be_none(field: str, kind: str) -> None:
    # A pandas row gives NaN for an empty cell: "got float" alone did not say what to pass instead.
    with pytest.raises(TypeError) as error:
        Example("q1", "q?", **{field: np.float64("nan")})
    assert str(error.value) == (f"Example 'q1': {field} must be {kind}, got float64 (NaN, pandas' missing "
                                "value: pass None for one that is unknown)")


def test_a_decimal_score_and_confidence_are_taken_as_the_floats_they_write() -> None:
    # A database's NUMERIC column comes back as Decimal, which numbers.Real leaves out: both were refused
    # as no number.
    assert Context("d1", "t", Decimal("0.25")).score == 0.25
    assert type(Context("d1", "t", Decimal("0.25")).score) is float
    config = EvalConfig(confidence=Decimal("0.9"))  # type: ignore[arg-type]
    assert type(config.confidence) is float and config.confidence == 0.9


@pytest.mark.parametrize("level", [Decimal("NaN"), Decimal("sNaN"), Decimal("1.5"), Decimal("0")])
def test_a_decimal_confidence_outside_0_1_is_the_usual_value_error(level: Decimal) -> None:
    # Decimal's NaN raised InvalidOperation on the range check, not the error every other number gets.
    with pytest.raises(ValueError) as error:
        EvalConfig(confidence=level)  # type: ignore[arg-type]
    assert str(error.value) == f"EvalConfig.confidence must be a number in (0, 1), got {level!r}"


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_verdict_pickles_back_to_the_same_values(protocol: int) -> None:
    """A lexical worker's verdicts come back to the sidecar pickled (`ragmon.scoring.read_result`), each
    built again from its constructor's arguments: every field, defaults and None included, is kept."""
    verdicts = (ClaimVerdict(Claim("The sky is blue.", 0, 16), True, ("d1", "d2"), "d1 says so"),
                ClaimVerdict(Claim("Grass is red.", 17, 30), False))
    back = pickle.loads(pickle.dumps(verdicts, protocol))
    assert back == verdicts
    fields = [(v.claim.text, v.claim.start, v.claim.end, v.supported, v.supporting_ids, v.reason)
              for v in back]
    assert fields == [("The sky is blue.", 0, 16, True, ("d1", "d2"), "d1 says so"),
                      ("Grass is red.", 17, 30, False, (), None)]
