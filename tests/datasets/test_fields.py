"""Typed field readers and near misses of field names: a bad value or a typo is an error naming the field;
any other field is carried along."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dataset_cases import error_of, sha_id, write_jsonl

from ragmon.datasets import load

# --- format 1: ragmon JSONL ----------------------------------------------------------------------


@pytest.mark.parametrize(("record", "field", "words"), [
    ({"question": "q?"}, "id", "missing required field"),
    ({"id": "a"}, "question", "missing required field"),
    ({"id": "a", "question": None}, "question", "required field 'question' is null"),  # there, not missing
    ({"id": None, "question": "q"}, "id", "required field 'id' is null"),
    ({"id": "a", "question": 3}, "question", "expected a string"),
    ({"id": "a", "question": "q", "contexts": {"id": "d"}}, "contexts", "expected a list"),
    ({"id": "a", "question": "q", "contexts": [{"id": "d"}]}, "contexts[0].text", "missing required field"),
    ({"id": "a", "question": "q", "contexts": [{"text": "t", "score": "high"}]}, "contexts[0].score",
     "expected a number"),
    ({"id": "a", "question": "q", "relevant_ids": "d1"}, "relevant_ids", "expected a list of ids"),
    ({"id": "a", "question": "q", "citations": [1.5]}, "citations[0]", "expected an id"),
    ({"id": "a", "question": "q", "answer": ["x"]}, "answer", "expected a string or null"),
])
def test_bad_field_is_named_with_its_line(tmp_path: Path, record: dict, field: str, words: str) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [{"id": "ok", "question": "fine"}, record])
    err = error_of([path])
    assert (err.source, err.line, err.field) == (str(path), 2, field)
    assert words in str(err)


@pytest.mark.parametrize(("written", "shown"), [("17.0", "17.0"), ("NaN", "NaN"), ("1e400", "Infinity")])
def test_an_id_written_as_a_float_is_shown_with_where_it_comes_from(tmp_path: Path, written: str,
                                                                     shown: str) -> None:
    # pandas writes an integer column holding a missing cell as floats (17.0, NaN): the error had said "got
    # a number", of an id that is a whole number in value, without showing it.
    path = tmp_path / "d.jsonl"
    path.write_text(f'{{"id": {written}, "question": "q"}}\n', encoding="utf-8")
    err = error_of([path])
    assert (err.line, err.field) == (1, "id")
    assert str(err) == (f"{path}:1: expected an id (string or whole number), got the number {shown}: an id "
                        "is read as written (a pandas column of ids holding a missing cell is written as "
                        "floats: write it with .astype('Int64'), or as strings) (field 'id')")


# --- found in a user audit: typos, format switches and unknown step kinds lost examples silently ----


@pytest.mark.parametrize(("typo", "meant"), [
    ("context", "contexts"),          # a letter short
    ("anwser", "answer"),             # two letters swapped
    ("citation", "citations"),
    ("relevant_id", "relevant_ids"),
    ("groundtruth", "ground_truth"),  # same name without the underscore
    ("Category", "category"),         # same name, other case
    ("relevant-ids", "relevant_ids"),
    ("answers", "answer"),            # a trailing "s"
])
def test_near_miss_of_a_ragmon_field_is_an_error_naming_the_field_meant(tmp_path: Path, typo: str,
                                                                          meant: str) -> None:
    # Before: the row loaded with the field carried in `extra` and e.g. groundedness undefined, so a
    # gate passed on the other rows with nothing said.
    good = {"id": "a", "question": "q", "contexts": [{"id": "x", "text": "Doc."}], "answer": "Doc.",
            "citations": ["x"], "relevant_ids": ["x"], "ground_truth": "Doc.", "category": "c"}
    bad = {**{k: v for k, v in good.items() if k != meant}, "id": "b", typo: good[meant]}
    path = write_jsonl(tmp_path / "golden.jsonl", [good, bad])
    err = error_of([path])
    assert (err.source, err.line, err.field) == (str(path), 2, typo)
    assert str(err) == f"{path}:2: unknown field {typo!r}: did you mean {meant!r}? (field {typo!r})"


@pytest.mark.parametrize("typo", ["need_review", "needsReview", "needs-review"])
@pytest.mark.parametrize("record", [{"id": "b", "question": "q", "answer": "A."},
                                    {"id": "b", "input": "q", "output": "A."}], ids=["ragmon", "trace"])
def test_a_misspelt_needs_review_is_an_error_naming_it(tmp_path: Path, typo: str,
                                                       record: dict[str, str]) -> None:
    # Before: carried along in `extra` as the user's own field, so a line marked for review under that
    # name was replayed without replay's warning of unreviewed lines.
    path = write_jsonl(tmp_path / "golden.jsonl", [{**record, "id": "a"}, {**record, typo: True}])
    err = error_of([path])
    assert (err.source, err.line, err.field) == (str(path), 2, typo)
    assert str(err) == f"{path}:2: unknown field {typo!r}: did you mean 'needs_review'? (field {typo!r})"


# Fields users carry next to the known ones (capture writes `metadata` and `needs_review`, calibrate reads
# `labels`), and names that only contain a known one: none is a misspelling.
CARRIED = ["metadata", "tags", "notes", "source", "created_at", "labels", "needs_review", "captured_at",
           "difficulty", "question_id", "answer_type", "pipeline_version", "subcategory", "category_id",
           "context_ids", "idx", "uid", "session_id", "timestamp"]


@pytest.mark.parametrize("field", CARRIED)
def test_other_fields_are_still_carried_along_in_every_format(tmp_path: Path, field: str) -> None:
    value = True if field == "needs_review" else 1  # the review mark is true or false
    ragmon = write_jsonl(tmp_path / "r.jsonl", [{"id": "a", "question": "q", "answer": "A.", field: value}])
    trace = write_jsonl(tmp_path / "t.jsonl", [{"id": "b", "input": "q", "output": "A.", field: value}])
    evalset = tmp_path / "e.json"
    records = {"examples": [{"id": "c", "question": "q", field: value}]}
    evalset.write_text(json.dumps(records), encoding="utf-8")
    assert [example.extra for example in load([ragmon, trace, evalset])] == [{field: value}] * 3


@pytest.mark.parametrize(("other", "meant"), [
    ("retrieved_contexts", "contexts"),     # ragas
    ("retrieval_context", "contexts"),      # DeepEval
    ("source_documents", "contexts"),       # LangChain's chains
    ("response", "answer"),                 # ragas
    ("actual_output", "answer"),            # DeepEval
    ("user_input", "question"),             # ragas
    ("query", "question"),
    ("reference_answer", "ground_truth"),
    ("expected_output", "ground_truth"),    # DeepEval
    ("gold_doc_ids", "relevant_ids"),
    ("ground_truth_answer", "ground_truth"),  # ragmon's own eval-set JSON
    ("expected_chunk_ids", "relevant_ids"),   # the same
    ("relevantDocIds", "relevant_ids"),     # any case and separator
    ("cited_ids", "citations"),
])
def test_another_tools_name_for_a_field_is_an_error_naming_ragmons(tmp_path: Path, other: str,
                                                                   meant: str) -> None:
    # Before: carried along unread, so a ragas-shaped golden set scored with no contexts (groundedness
    # undefined on every row) or no answer, and a run without a gate on it printed PASS.
    good = {"id": "a", "question": "q", "contexts": [{"id": "x", "text": "Doc."}], "answer": "Doc.",
            "citations": ["x"], "relevant_ids": ["x"], "ground_truth": "Doc."}
    bad = {**{k: v for k, v in good.items() if k != meant}, "id": "b", other: good[meant]}
    path = write_jsonl(tmp_path / "golden.jsonl", [good, bad])
    assert str(error_of([path])) == (f"{path}:2: unknown field {other!r}: ragmon reads this as {meant!r}, "
                                     f"rename it (field {other!r})")


def test_another_tools_name_beside_ragmons_own_is_carried_along(tmp_path: Path) -> None:
    # The field ragmon reads is there: the other is the user's own (a prompt kept beside its question).
    record = {"id": "a", "question": "q", "prompt": "System: ... q", "answer": "A.", "response": {"ms": 80},
              "reference": "https://help.example/returns", "documents": ["returns.md"], "relevant": True}
    # A LangChain document's text is its pageContent and its id in its metadata: `chunk` is its own.
    langchain = {"id": "b", "question": "q", "contexts": [
        {"pageContent": "Returns within 30 days.", "metadata": {"source": "returns.md"}, "chunk": 3}]}
    (first, second) = load([write_jsonl(tmp_path / "golden.jsonl", [record, langchain])])
    assert first.extra == {"prompt": "System: ... q", "response": {"ms": 80},
                           "reference": "https://help.example/returns", "documents": ["returns.md"],
                           "relevant": True}
    assert second.contexts is not None and second.contexts[0].id == "returns.md"


def test_deepevals_names_in_a_trace_record_are_errors_naming_the_trace_formats(tmp_path: Path) -> None:
    # A record with `input` is in the trace format, whose answer is `output`: DeepEval's actual_output was
    # carried along unread, and the run said the file held questions only.
    path = write_jsonl(tmp_path / "deepeval.jsonl", [
        {"id": "a", "input": "How long?", "actual_output": "30 days.", "expected_output": "30 days"}])
    # Both of its names at once (the first alone, before), as a trace record's id is optional.
    assert str(error_of([path])) == (f"{path}:1: unknown field 'actual_output': ragmon reads this as "
                                     f"'output', rename it; unknown field 'expected_output': ragmon reads "
                                     f"this as 'ground_truth', rename it")


def test_a_ragas_record_is_told_every_rename_it_needs_in_one_error(tmp_path: Path) -> None:
    # Before: one error a run, so a ragas export took five runs to load: user_input, then
    # retrieved_contexts, response, reference, and last the id it never had.
    ragas = {"user_input": "How long is the warranty?", "retrieved_contexts": ["The warranty lasts 2 years."],
             "response": "It lasts 2 years.", "reference": "Two years from the date of purchase."}
    path = write_jsonl(tmp_path / "ragas.jsonl", [{"id": "ok", "question": "fine"}, ragas])
    assert str(error_of([path])) == (
        f"{path}:2: unknown field 'user_input': ragmon reads this as 'question', rename it; "
        "unknown field 'retrieved_contexts': ragmon reads this as 'contexts', rename it; "
        "unknown field 'response': ragmon reads this as 'answer', rename it; "
        "unknown field 'reference': ragmon reads this as 'ground_truth' (it holds a text, not a URL), "
        "rename it; missing required field 'id'")
    # Doing what it says is all the record needed.
    renamed = {"id": "w1", "question": ragas["user_input"], "contexts": ragas["retrieved_contexts"],
               "answer": ragas["response"], "ground_truth": ragas["reference"]}
    (_, example) = load([write_jsonl(tmp_path / "renamed.jsonl", [{"id": "ok", "question": "f"}, renamed])])
    assert (example.id, example.question, example.answer) == ("w1", "How long is the warranty?",
                                                              "It lasts 2 years.")


@pytest.mark.parametrize(("record", "message"), [
    # One rename and the id: still two runs before. The question is there, so only the id is missing.
    ({"question": "q?", "response": "A."},
     "unknown field 'response': ragmon reads this as 'answer', rename it; missing required field 'id'"),
    # A question neither given nor renamed is missing too.
    ({"id": "a", "response": "A.", "retrieved_contexts": ["Doc."]},
     "unknown field 'response': ragmon reads this as 'answer', rename it; "
     "unknown field 'retrieved_contexts': ragmon reads this as 'contexts', rename it; "
     "missing required field 'question'"),
    # A typo and another tool's name, in one context: named at the context.
    ({"id": "a", "question": "q?", "contexts": [{"doc_id": "d1", "txt": "Doc."}]},
     "unknown field 'doc_id': ragmon reads this as 'id', rename it; unknown field 'txt': did you mean "
     "'text'? (field 'contexts[0]')"),
])
def test_every_misnamed_field_of_a_record_or_context_is_named_at_once(tmp_path: Path, record: dict,
                                                                      message: str) -> None:
    path = write_jsonl(tmp_path / "golden.jsonl", [record])
    assert str(error_of([path])) == f"{path}:1: {message}"


def test_a_whole_json_record_with_several_misnamed_fields_is_located_at_its_start(tmp_path: Path) -> None:
    path = tmp_path / "golden.json"
    path.write_text(json.dumps([{"id": "ok", "question": "fine"},
                                {"user_input": "q?", "response": "A."}], indent=2))
    err = error_of([path])
    assert (err.line, str(err)) == (6, f"{path}:6: unknown field 'user_input': ragmon reads this as "
                                       f"'question', rename it; unknown field 'response': ragmon reads this "
                                       f"as 'answer', rename it; missing required field 'id' (field '[1]')")


def test_a_context_ids_other_name_is_an_error_not_a_content_hash(tmp_path: Path) -> None:
    # Before: `doc_id` was dropped and the context got a content-hash id, so relevant_ids ["ret"] matched
    # nothing: hit rate 0 for a retriever that found the document.
    path = write_jsonl(tmp_path / "golden.jsonl", [
        {"id": "a", "question": "q", "contexts": [{"doc_id": "ret", "text": "D."}], "relevant_ids": ["ret"]}])
    assert str(error_of([path])) == (f"{path}:1: unknown field 'doc_id': ragmon reads this as 'id', "
                                     f"rename it (field 'contexts[0].doc_id')")


@pytest.mark.parametrize(("record", "field", "meant"), [
    ({"input": "q", "ouput": "A.", "steps": []}, "ouput", "output"),
    ({"input": "q", "output": "A.", "expected_docs": ["d"]}, "expected_docs", "expectedDocs"),
    ({"input": "q", "output": "A.", "stpes": [{"kind": "retrieval", "output": ["D."]}]}, "stpes", "steps"),
    ({"input": "q", "output": "A.", "steps": [{"kind": "retrieval", "outputs": ["D."]}]},
     "steps[0].outputs", "output"),
    ({"id": "a", "question": "q", "contexts": [{"ID": "d1", "text": "D."}]}, "contexts[0].ID", "id"),
])
def test_near_misses_in_trace_rows_steps_and_contexts(tmp_path: Path, record: dict, field: str,
                                                      meant: str) -> None:
    # Each was carried along or dropped before: no output (answer unknown), no expected docs, no steps
    # (contexts unknown), a retrieval step's output unread, a context id replaced by a content hash.
    path = write_jsonl(tmp_path / "t.jsonl", [record])
    err = error_of([path])
    key = field.rsplit(".", 1)[-1]
    assert str(err) == f"{path}:1: unknown field {key!r}: did you mean {meant!r}? (field {field!r})"


# --- found by an audit: a hint naming the other format's field led to a second error -----------------

RAGMON_RECORD = {"id": "a", "question": "How long?", "answer": "Refunds take 30 days.",
                 "contexts": [{"id": "d1", "text": "Refunds take 30 days."}]}
TRACE_RECORD = {"id": "a", "input": "How long?", "output": "Refunds take 30 days.",
                "steps": [{"kind": "retrieval", "output": [{"id": "d1", "text": "Refunds take 30 days."}]}]}


def _without(record: dict, key: str) -> dict:
    return {name: value for name, value in record.items() if name != key}


@pytest.mark.parametrize(("record", "typo", "value", "meant"), [
    (RAGMON_RECORD, "expected_ids", ["d1"], "relevant_ids"),   # was told 'expectedDocs', the trace format's
    (RAGMON_RECORD, "expected_doc", ["d1"], "relevant_ids"),
    (_without(RAGMON_RECORD, "answer"), "outputs", "Refunds take 30 days.", "answer"),
    (_without(RAGMON_RECORD, "question"), "inputs", "How long?", "question"),
    (TRACE_RECORD, "relevantIds", ["d1"], "expectedDocs"),     # was told 'relevant_ids', the ragmon format's
    (TRACE_RECORD, "relevant_id", ["d1"], "expectedDocs"),
    (_without(TRACE_RECORD, "output"), "answr", "Refunds take 30 days.", "output"),
], ids=["ragmon-expected_ids", "ragmon-expected_doc", "ragmon-outputs", "ragmon-inputs",
        "trace-relevantIds", "trace-relevant_id", "trace-answr"])
def test_a_near_miss_is_told_the_name_of_the_records_own_format(tmp_path: Path, record: dict, typo: str,
                                                                   value: object, meant: str) -> None:
    path = write_jsonl(tmp_path / "golden.jsonl", [{**record, typo: value}])
    told = f"unknown field {typo!r}: did you mean {meant!r}?"
    assert str(error_of([path])) == f"{path}:1: {told} (field {typo!r})"
    # Renamed as told, the record loads (it was refused next as mixing the two formats).
    renamed = {**record, meant: value}
    (example,) = load([write_jsonl(tmp_path / "fixed.jsonl", [renamed])])
    assert (example.question, example.answer) == ("How long?", "Refunds take 30 days.")


def test_contexts_in_a_trace_record_are_told_to_be_a_retrieval_step(tmp_path: Path) -> None:
    # DeepEval's record: told 'contexts' before, and renamed so, refused as mixing the two formats.
    deepeval = {"id": "a", "input": "How long?", "output": "30 days.",
                "retrieval_context": ["Refunds: 30 days."]}
    typo = {"id": "b", "input": "How long?", "output": "30 days.", "context": ["Refunds: 30 days."]}
    told = "a trace record's contexts are the 'output' of a step of kind 'retrieval' in its 'steps'"
    for record, key in ((deepeval, "retrieval_context"), (typo, "context")):
        path = write_jsonl(tmp_path / f"{key}.jsonl", [record])
        assert str(error_of([path])) == f"{path}:1: unknown field {key!r}: {told} (field {key!r})"


def test_another_formats_name_beside_the_field_it_renames_is_carried_along(tmp_path: Path) -> None:
    # The record has its own format's field: the near miss of the other format's is the user's, as a
    # `prompt` beside a `question` is.
    record = {**RAGMON_RECORD, "relevant_ids": ["d1"], "expected_doc": "notes"}
    (example,) = load([write_jsonl(tmp_path / "golden.jsonl", [record])])
    assert (example.relevant_ids, example.extra) == (frozenset({"d1"}), {"expected_doc": "notes"})


# --- found by a CI engineer: common names for documents, answer and reference, carried unread --------


@pytest.mark.parametrize(("other", "value", "meant", "held"), [
    ("documents", ["Returns are accepted within 30 days.", "Refunds take 5 days.", "Keep the receipt."],
     "contexts", "a list of 3 texts"),
    ("docs", [{"id": "d1", "content": "Returns are accepted within 30 days."}], "contexts",
     "a list of 1 document with text"),
    ("passages", [{"page_content": "Returns within 30 days.", "metadata": {"source": "returns.md"}},
                  {"pageContent": "Refunds take 5 days.", "metadata": {}}], "contexts",
     "a list of 2 documents with text"),  # LangChain Documents, as dicts and as JS writes them
    ("sources", [{"url": "https://help.example/returns", "passage": "Returns within 30 days."}], "contexts",
     "a list of 1 document with text"),
    ("chunks", [{"chunk": "Returns within 30 days."}, {"text": "Refunds take 5 days."}], "contexts",
     "a list of 2 documents with text"),
    ("retrieved", ["Returns within 30 days."], "contexts", "a list of 1 text"),
    ("retrieval", [{"document": "Returns within 30 days."}], "contexts", "a list of 1 document with text"),
    ("context_docs", ["Returns within 30 days.", "Refunds take 5 days."], "contexts", "a list of 2 texts"),
    ("completion", "Thirty days.", "answer", "a sentence"),
    ("prediction", "Yes, within 30 days.", "answer", "a sentence"),
    ("reply", "Returns are accepted within thirty days of delivery", "answer", "a sentence"),  # 8 words
    ("generation", "Thirty days.", "answer", "a sentence"),
    ("reference", "Within 30 days of delivery.", "ground_truth", "a text, not a URL"),  # ragas >= 0.2
])
def test_a_common_name_whose_value_has_the_fields_shape_is_an_error_naming_ragmons(
        tmp_path: Path, other: str, value: object, meant: str, held: str) -> None:
    # Before: carried along unread, so the example had no contexts (or answer), its groundedness was
    # undefined and it left the gated mean: 10 of 30 records with `documents` turned a breach into a pass.
    good = {"id": "a", "question": "q", "contexts": ["Doc."], "answer": "Doc.", "ground_truth": "Doc."}
    bad = {**{k: v for k, v in good.items() if k != meant}, "id": "b", other: value}
    path = write_jsonl(tmp_path / "golden.jsonl", [good, bad])
    err = error_of([path])
    assert (err.source, err.line, err.field) == (str(path), 2, other)
    assert str(err) == (f"{path}:2: unknown field {other!r}: ragmon reads this as {meant!r} "
                        f"(it holds {held}), rename it (field {other!r})")


@pytest.mark.parametrize(("other", "value", "meant", "held"), [
    ("completion", "Thirty days.", "output", "a sentence"),
    ("reference", "Within 30 days of delivery.", "ground_truth", "a text, not a URL"),
])
def test_a_common_name_of_the_fields_shape_in_a_trace_record_names_the_trace_formats(
        tmp_path: Path, other: str, value: str, meant: str, held: str) -> None:
    record = {"id": "a", "input": "q", "steps": [{"kind": "retrieval", "output": ["Doc."]}], other: value}
    path = write_jsonl(tmp_path / "t.jsonl", [record])
    assert str(error_of([path])) == (f"{path}:1: unknown field {other!r}: ragmon reads this as {meant!r} "
                                     f"(it holds {held}), rename it (field {other!r})")


@pytest.mark.parametrize(("field", "value"), [
    ("documents", "https://help.example/returns"),  # a URL
    ("documents", 3),                               # a count
    ("documents", ["returns.md", "refunds.md"]),    # names
    ("sources", ["https://help.example/returns"]),
    ("docs", [{"id": "d1", "title": "Returns"}]),   # objects without a text
    ("chunks", []),
    ("documents", ["Returns within 30 days.", 3]),  # not every item a text
    ("completion", {"tokens": 80}),
    ("prediction", True),
    ("reference", "https://help.example/returns"),
    ("reference", "https://help.example/returns (section 2)"),  # a URL with a note
    ("reference", "RFC-2616"),
    # Titles, tags and labels a live golden set keeps: no sentence mark, and short (found by a review).
    ("sources", ["Return policy", "Shipping FAQ"]),
    ("passages", ["section 2", "section 4"]),
    ("generation", "v2"),
    ("reply", "email"),
    ("prediction", "Yes"),
    ("reference", "see FAQ section 2"),
    ("reference", "Return policy"),
])
def test_a_common_name_of_another_shape_is_carried_along(tmp_path: Path, field: str, value: object) -> None:
    # A golden set asked live leaves contexts and answer out, and may keep such fields of its own.
    path = write_jsonl(tmp_path / "golden.jsonl", [{"id": "a", "question": "q", field: value}])
    (example,) = load([path])
    assert example.extra == {field: value}


def test_a_common_name_beside_the_field_itself_is_carried_along(tmp_path: Path) -> None:
    texts = ["Returns are accepted within 30 days."]
    ragmon = {"id": "a", "question": "q", "contexts": texts, "documents": texts, "answer": "A.",
              "completion": "A draft.", "ground_truth": "30 days", "reference": "Within 30 days of delivery."}
    # In a trace record `output` is the answer, and a `completion` beside it the user's.
    trace = {"id": "b", "input": "q", "output": "B.", "completion": "A draft."}
    first, second = load([write_jsonl(tmp_path / "golden.jsonl", [ragmon]),
                          write_jsonl(tmp_path / "trace.jsonl", [trace])])
    assert first.extra == {"documents": texts, "completion": "A draft.",
                           "reference": "Within 30 days of delivery."}
    assert (second.answer, second.extra) == ("B.", {"completion": "A draft."})



# --- found by a CI engineer: contexts whose id ragmon does not read, in a record labelled by id --------

_READS = "ragmon reads 'id', else 'metadata.id', 'metadata.source' or 'metadata.doc_id'"
_ZERO = "(a content hash in its place would make every figure over them 0)"


@pytest.mark.parametrize("key", ["source", "url", "uuid", "name"])
def test_a_context_whose_id_is_under_a_key_ragmon_does_not_read_is_an_error_in_a_labelled_record(
        tmp_path: Path, key: str) -> None:
    # Before: named by its content hash, which "d1" never matches: hit rate, precision, recall, mrr and
    # ndcg all 0, a recall gate BREACHED and "Relevant but not in the top 5 retrieved: d1" in the report,
    # for a retriever that found the document.
    record = {"id": "x", "question": "How long is the warranty?", "answer": "The warranty lasts 2 years.",
              "relevant_ids": ["d1"], "contexts": [{key: "d1", "text": "The warranty lasts 2 years."}]}
    path = write_jsonl(tmp_path / "golden.jsonl", [{"id": "ok", "question": "fine"}, record])
    assert str(error_of([path])) == (
        f"{path}:2: the context has no id, which the record's 'relevant_ids' are matched against {_ZERO}: "
        f"{_READS}; did you mean {key!r}? (field 'contexts[0].id')")


def test_a_plain_string_context_in_a_record_labelled_by_id_is_an_error(tmp_path: Path) -> None:
    record = {"id": "x", "question": "q", "contexts": ["The warranty lasts 2 years."], "relevant_ids": ["d1"]}
    path = write_jsonl(tmp_path / "golden.jsonl", [record])
    assert str(error_of([path])) == (
        f"{path}:1: a plain-string context has no id, which the record's 'relevant_ids' are matched against "
        f'{_ZERO}: give each context as {{"id": ..., "text": ...}} (field \'contexts[0]\')')


def test_cited_ids_need_the_contexts_ids_too(tmp_path: Path) -> None:
    # A citation of "d1" matched no content hash either: citation accuracy 0 for an answer citing well.
    record = {"id": "x", "question": "q", "answer": "Two years.", "citations": ["d1"],
              "contexts": [{"id": "d0", "text": "Other."},
                           {"text": "Two years.", "metadata": {"url": "u/d1"}}]}
    path = write_jsonl(tmp_path / "golden.jsonl", [record])
    assert str(error_of([path])) == (
        f"{path}:1: the context has no id, which the record's 'citations' are matched against {_ZERO}: "
        f"{_READS}; did you mean 'metadata.url'? (field 'contexts[1].id')")


def test_a_langchain_document_without_an_id_in_a_trace_labelled_by_expected_docs_is_an_error(
        tmp_path: Path) -> None:
    record = {"input": "q", "expectedDocs": ["d1"], "steps": [{"kind": "retrieval", "output": [
        {"pageContent": "Two years.", "metadata": {"url": "https://help.example/d1", "title": "Warranty"}}]}]}
    path = write_jsonl(tmp_path / "t.jsonl", [record])
    assert str(error_of([path])) == (
        f"{path}:1: the context has no id, which the record's 'expectedDocs' are matched against {_ZERO}: "
        f"{_READS}; did you mean 'metadata.url' or 'metadata.title'? (field 'steps[0].output[0].metadata')")


def test_a_langchain_documents_own_id_names_it_unless_its_vector_store_made_it(tmp_path: Path) -> None:
    # Its metadata was read first whatever the id: d1 was named guide.pdf and m1, and recall of a
    # retriever that found both read 0. A UUID a vector store gave a document added without an id still
    # yields to the app's own name in the metadata, as in a trace.
    store_uuid = "3f2b8c1e-9a4d-4e7f-b6a2-5c8d9e0f1a2b"
    record = {"id": "x", "question": "q", "relevant_ids": ["d1", "d2", "guide.pdf"], "contexts": [
        {"id": "d1", "page_content": "A.", "metadata": {"source": "guide.pdf"}},
        {"id": "d2", "pageContent": "B.", "metadata": {"id": "m1"}},
        {"id": store_uuid, "page_content": "C.", "metadata": {"source": "guide.pdf"}},
        {"id": store_uuid.upper(), "page_content": "D."},
        {"id": "", "page_content": "E.", "metadata": {"source": "faq.md"}}]}
    (example,) = load([write_jsonl(tmp_path / "golden.jsonl", [record])])
    assert example.contexts is not None
    assert [c.id for c in example.contexts] == ["d1", "d2", "guide.pdf", store_uuid.upper(), "faq.md"]


def test_a_context_giving_its_text_as_text_and_as_page_content_is_an_error(tmp_path: Path) -> None:
    # The page_content was read and the text dropped unseen: a true answer scored as made up.
    record = {"id": "x", "question": "q", "answer": "Helmets are free.",
              "contexts": [{"id": "d1", "text": "Helmets are free.", "page_content": "The deposit is $50."}]}
    path = write_jsonl(tmp_path / "golden.jsonl", [record])
    assert str(error_of([path])) == (f"{path}:1: gives its text twice, as 'text', 'page_content': keep "
                                     "one (field 'contexts[0].page_content')")


def test_a_contexts_id_in_its_metadata_is_read_as_a_langchain_documents_is(tmp_path: Path) -> None:
    # {text, metadata: {id}} is how ragmon.contexts and ragmon.instrument name a document live; offline its
    # id was a content hash, and the recall of a retriever that found "d1" read 0. A LangChain document's
    # own id (Document.id) names it when its metadata does not.
    record = {"id": "x", "question": "q", "relevant_ids": ["d1", "d2", "d3"], "contexts": [
        {"text": "A.", "metadata": {"id": "d1"}}, {"text": "B.", "metadata": {"source": "d2", "id": None}},
        {"pageContent": "C.", "id": "d3"}, {"id": "d4", "text": "D.", "metadata": {"id": "ignored"}}]}
    (example,) = load([write_jsonl(tmp_path / "golden.jsonl", [record])])
    assert example.contexts is not None
    assert [c.id for c in example.contexts] == ["d1", "d2", "d3", "d4"]


@pytest.mark.parametrize("relevant", [{}, {"relevant_ids": []}], ids=["unlabelled", "unanswerable"])
def test_contexts_without_an_id_are_read_where_no_labelled_id_is_matched_against_them(
        tmp_path: Path, relevant: dict) -> None:
    # Groundedness needs no id: plain strings (a ragas export's contexts) stay fine, named by their hash.
    record = {"id": "x", "question": "q", "answer": "Two years.",
              "contexts": ["Two years.", {"source": "d1", "text": "Keep the box."}], **relevant}
    (example,) = load([write_jsonl(tmp_path / "golden.jsonl", [record])])
    assert example.contexts is not None
    assert [c.id for c in example.contexts] == [sha_id("Two years."), sha_id("Keep the box.")]


@pytest.mark.parametrize(("value", "message"), [("", "expected a non-empty id"),
                                                 ("  ", "expected an id, got only spaces '  '")])
def test_an_id_of_nothing_or_spaces_is_an_error(tmp_path: Path, value: str, message: str) -> None:
    # "" was refused and "  " taken: the warnings listing examples by id ended in an invisible name.
    path = write_jsonl(tmp_path / "golden.jsonl", [{"id": value, "question": "q", "answer": "y."}])
    assert str(error_of([path])) == f"{path}:1: {message} (field 'id')"


GROUND_TRUTH_HINT = ": write the reference answer, or null (or no field) where none is known"


@pytest.mark.parametrize(("value", "message"), [
    ("", "expected a non-empty ground truth"), ("  ", "expected a ground truth, got only spaces '  '")])
@pytest.mark.parametrize("record", [
    {"id": "b", "question": "How long?", "answer": "Thirty days."},
    {"id": "b", "input": "How long?", "output": "Thirty days.", "steps": []},
], ids=["ragmon", "trace"])
def test_a_blank_ground_truth_is_an_unfilled_field_refused_naming_file_line_and_field(
        tmp_path: Path, value: str, message: str, record: dict) -> None:
    # Before: read as the reference answer, every answer scored answer_correctness 0 against it, where the
    # sidecar reads a blank ragmon.ground_truth as unknown (answer_correctness undefined).
    path = write_jsonl(tmp_path / "golden.jsonl", [{**record, "id": "a", "ground_truth": "30 days"},
                                                   {**record, "ground_truth": value}])
    assert str(error_of([path])) == f"{path}:2: {message}{GROUND_TRUTH_HINT} (field 'ground_truth')"


def test_a_blank_ground_truth_answer_in_an_eval_set_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "eval.json"
    path.write_text('{"examples": [\n'
                    '  {"id": "e1", "question": "Return window?", "ground_truth_answer": "30 days"},\n'
                    '  {"id": "e2", "question": "Ship time?", "ground_truth_answer": " "}\n'
                    ']}\n', encoding="utf-8")
    assert str(error_of([path])) == (f"{path}:3: expected a ground truth, got only spaces ' '"
                                     f"{GROUND_TRUTH_HINT} (field 'examples[1].ground_truth_answer')")



# --- found in an audit of golden-file reading: a NaN score kept as NaN -------------------------------


def test_a_nan_or_infinite_context_score_is_read_as_no_score_as_the_capture_writes_it(tmp_path: Path) -> None:
    # Python's json.dumps writes a vector store's NaN as `NaN`; 1e400 overflows to infinity. Kept as NaN,
    # two loads of one file gave examples that compared unequal, and unlike the capture of the same
    # retrieval, which writes null. A finite score, an integer one too, is kept as given.
    path = tmp_path / "golden.jsonl"
    scores = ["NaN", "Infinity", "-Infinity", "1e400", "0.5", "7"]
    contexts = ", ".join(f'{{"id": "d{n}", "text": "t{n}", "score": {score}}}'
                         for n, score in enumerate(scores))
    path.write_text(f'{{"id": "a", "question": "q?", "contexts": [{contexts}]}}\n', encoding="utf-8")
    (example,) = load([path])
    assert [context.score for context in example.contexts or ()] == [None, None, None, None, 0.5, 7]
    assert list(load([path])) == [example]


def test_a_nan_score_in_a_trace_retrieval_step_is_no_score_too(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text('{"id": "t1", "input": "q?", "output": "t.", "steps": [{"kind": "retrieval", '
                    '"output": [{"id": "d1", "text": "t.", "score": NaN}]}]}\n', encoding="utf-8")
    (example,) = load([path])
    assert [(context.id, context.score) for context in example.contexts or ()] == [("d1", None)]
