"""Golden sets exported by other tools (LangSmith, LangChain, ragas, pandas, a spreadsheet): each is read
whole, or refused with a message saying what to change; none loses contexts, ids or labels without a
word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dataset_cases import error_of, sha_id, write_jsonl

from ragmon.datasets import load
from ragmon.model import Context

RETURNS, SHOES = "Returns are accepted within 30 days.", "Shoes must be unworn."


def test_contexts_logged_beside_a_traces_answer_are_read_under_a_chains_names(tmp_path: Path) -> None:
    # LangChain RetrievalQA with return_source_documents: {"query"} in, {"result", "source_documents"} out.
    rqa = {"id": "r1", "input": {"query": "Can I return shoes?"},
           "output": {"result": "Yes, within 30 days.",
                      "source_documents": [{"page_content": RETURNS, "metadata": {"source": "returns.md"}},
                                           {"page_content": SHOES, "metadata": {"source": "shoes.md"}}]}}
    # LangSmith's outputs renamed as ragmon's hint says: plain-string contexts beside the answer.
    langsmith = {"id": "r2", "input": {"question": "Return window?", "chat_history": []},
                 "output": {"answer": "30 days.", "contexts": [RETURNS]}}
    first, second = load([write_jsonl(tmp_path / "t.jsonl", [rqa, langsmith])])
    assert (first.question, first.answer) == ("Can I return shoes?", "Yes, within 30 days.")
    assert first.contexts == (Context("returns.md", RETURNS), Context("shoes.md", SHOES))
    assert (second.question, second.answer) == ("Return window?", "30 days.")
    assert second.contexts == (Context(sha_id(RETURNS), RETURNS),)
    assert second.extra == {"input": {"chat_history": []}}  # the chain's other inputs are carried along


def test_a_logged_objects_name_for_contexts_left_unread_is_an_error(tmp_path: Path) -> None:
    record = {"id": "r1", "input": "Q?", "output": {"answer": "A.", "documents": [RETURNS, SHOES]}}
    err = error_of([write_jsonl(tmp_path / "t.jsonl", [record])])
    assert (err.line, err.field) == (1, "output.documents")
    assert "ragmon reads this as 'contexts' (it holds a list of 2 texts), rename it" in str(err)


def test_contexts_given_both_logged_and_in_retrieval_steps_is_an_error(tmp_path: Path) -> None:
    record = {"id": "r1", "input": "Q?", "output": {"answer": "A.", "contexts": [RETURNS]},
              "steps": [{"kind": "retrieval", "output": [SHOES]}]}
    err = error_of([write_jsonl(tmp_path / "t.jsonl", [record])])
    assert (err.line, err.field) == (1, "output.contexts")
    assert "gives the contexts twice, in 'output.contexts' and in the retrieval steps" in str(err)


def test_two_answers_in_one_logged_object_is_an_error(tmp_path: Path) -> None:
    record = {"id": "r1", "input": "Q?", "output": {"answer": "A.", "result": "B."}}
    err = error_of([write_jsonl(tmp_path / "t.jsonl", [record])])
    assert err.field == "output.result" and "gives its text twice, as 'answer', 'result'" in str(err)


def test_langsmiths_inputs_and_outputs_are_told_the_trace_names_and_no_missing_question(
        tmp_path: Path) -> None:
    record = {"id": "r1", "inputs": {"question": "Q?"}, "outputs": {"answer": "A.", "contexts": [RETURNS]}}
    path = write_jsonl(tmp_path / "t.jsonl", [record])
    assert str(error_of([path])) == (f"{path}:1: unknown field 'inputs': did you mean 'input'?; "
                                     "unknown field 'outputs': did you mean 'output'?")


def test_langsmiths_inputs_and_outputs_with_no_id_are_not_taken_for_a_pandas_dataframe(
        tmp_path: Path) -> None:
    # Two objects of other fields, not rows of the same columns: told the renames, and the id it lacks.
    record = {"inputs": {"question": "Q?"}, "outputs": {"answer": "A."}}
    path = write_jsonl(tmp_path / "t.jsonl", [record])
    assert str(error_of([path])) == (f"{path}:1: unknown field 'inputs': did you mean 'input'?; "
                                     "unknown field 'outputs': did you mean 'output'?; "
                                     "missing required field 'id'")


def test_ragas_context_ids_name_the_contexts_and_reference_ids_are_told_relevant_ids(tmp_path: Path) -> None:
    ragas = {"user_input": "Return window?", "retrieved_contexts": [RETURNS, SHOES],
             "retrieved_context_ids": ["d1", "d2"], "reference_context_ids": ["d1"], "response": "30 days."}
    err = error_of([write_jsonl(tmp_path / "raw.jsonl", [ragas])])
    assert "unknown field 'reference_context_ids': ragmon reads this as 'relevant_ids', rename it" in str(err)
    assert "retrieved_context_ids" not in str(err)  # read as it is
    renamed = {"id": "x0", "question": "Return window?", "contexts": [RETURNS, SHOES],
               "retrieved_context_ids": ["d1", "d2"], "relevant_ids": ["d1"], "answer": "30 days."}
    (example,) = load([write_jsonl(tmp_path / "renamed.jsonl", [renamed])])
    assert example.contexts == (Context("d1", RETURNS), Context("d2", SHOES))
    assert example.relevant_ids == frozenset({"d1"}) and example.extra == {}


def test_ragas_context_ids_of_another_length_than_the_contexts_is_an_error(tmp_path: Path) -> None:
    record = {"id": "x0", "question": "Q?", "contexts": [RETURNS, SHOES], "retrieved_context_ids": ["d1"]}
    err = error_of([write_jsonl(tmp_path / "r.jsonl", [record])])
    assert (err.line, err.field) == (1, "retrieved_context_ids")
    assert "has 1 ids for 2 contexts: give one id per context" in str(err)


def test_a_csv_file_is_named_as_csv_with_what_to_convert_it_to(tmp_path: Path) -> None:
    path = tmp_path / "eval.csv"
    path.write_text('id,question,answer\ne1,Return window?,"30 days."\n', encoding="utf-8")
    err = error_of([path])
    assert err.line == 1 and "the file looks like CSV" in str(err)
    assert 'orient="records", lines=True' in str(err)


def test_ragas_01_ground_truths_list_is_told_to_give_its_one_string_in_one_message(tmp_path: Path) -> None:
    record = {"id": "e1", "question": "Q?", "answer": "A.", "ground_truths": ["30 days."]}
    path = write_jsonl(tmp_path / "r.jsonl", [record])
    assert str(error_of([path])) == (f"{path}:1: unknown field 'ground_truths': did you mean 'ground_truth'? "
                                     "(a list of 1 string: give that string, not the list) "
                                     "(field 'ground_truths')")


@pytest.mark.parametrize(("orient", "document"), [
    ("columns", {"id": {"0": "e1", "1": "e2"}, "question": {"0": "Q1?", "1": "Q2?"}}),
    ("split", {"columns": ["id", "question"], "index": [0, 1], "data": [["e1", "Q1?"], ["e2", "Q2?"]]}),
    ("index", {"0": {"id": "e1", "question": "Q1?"}, "1": {"id": "e2", "question": "Q2?"}}),
])
def test_a_pandas_dataframe_not_written_as_records_is_told_to_write_records(tmp_path: Path, orient: str,
                                                                            document: object) -> None:
    path = tmp_path / "df.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    err = error_of([path])
    assert f"pandas DataFrame written with orient={orient!r}" in str(err)
    assert 'to_json(path, orient="records", lines=True)' in str(err)


def test_python_langchains_page_content_is_read_like_page_content_in_js(tmp_path: Path) -> None:
    record = {"id": "e1", "question": "Q?", "relevant_ids": ["returns.md"],
              "contexts": [{"id": None, "page_content": RETURNS, "metadata": {"source": "returns.md"},
                            "type": "Document"}]}
    (example,) = load([write_jsonl(tmp_path / "r.jsonl", [record])])
    assert example.contexts == (Context("returns.md", RETURNS),)
