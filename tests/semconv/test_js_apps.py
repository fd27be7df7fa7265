"""Traces of a Node.js RAG app as OpenTelemetry JS's exporters sent them (tests/js_apps.py): LangChain.js
under OpenInference's JS instrumentor read as the same chain in Python under the Python instrumentor, the
Vercel AI SDK's telemetry, and OTel GenAI spans written by hand."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from js_apps import CONTEXTS, CORPUS, GROUNDED, MADE_UP, QUESTION, capture
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.language_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from opentelemetry.trace import SpanKind

from ragmon.evaluation import evaluate_example
from ragmon.judges.lexical import LexicalJudge
from ragmon.model import Context, Example
from ragmon.semconv.extract import UNASKED, ExtractionError, extract, unasked_note

if TYPE_CHECKING:
    from semconv.conftest import Recorder


class CorpusRetriever(BaseRetriever):
    """app.mjs's retriever: every document of the corpus, in its order."""

    documents: list[Document]

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return self.documents


def python_chain(langchain: Recorder, answer: str, documents: list[Document]) -> Example:
    """app.mjs's chain in Python, run under the Python instrumentor, and its trace read."""
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Answer from the numbered context only.\n{context}"), ("human", "{question}")])
    numbered = RunnableLambda(
        lambda docs: "\n".join(f"[{n}] {doc.page_content}" for n, doc in enumerate(docs, 1)))
    chain = ({"context": CorpusRetriever(documents=documents) | numbered, "question": RunnablePassthrough()}
             | prompt | FakeListChatModel(responses=[answer]) | StrOutputParser())
    assert chain.invoke(QUESTION) == answer
    example = extract(langchain.trace())
    assert example is not None
    return example


def read_alike(js: Example, python: Example) -> None:
    """The same example, and the same figures from the lexical judge, but for the trace id and pipeline."""
    assert (js.question, js.contexts, js.answer, js.citations) == (
        python.question, python.contexts, python.answer, python.citations)
    judge = LexicalJudge()
    assert evaluate_example(js, judge, 5).metrics == evaluate_example(python, judge, 5).metrics


@pytest.mark.parametrize(("name", "answer"), [
    ("langchain-proto-gzip", GROUNDED), ("langchain-json", MADE_UP), ("langchain-grpc-gzip", GROUNDED)])
def test_a_langchain_js_chain_reads_as_the_same_python_chain(langchain: Recorder, name: str,
                                                             answer: str) -> None:
    js = capture(name)

    example = extract(js.trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, CONTEXTS, answer)
    assert example.citations == ("kb-refunds",)  # "[1]"
    assert example.pipeline == js.service
    documents = [Document(id=doc_id, page_content=text, metadata={"id": doc_id})
                 for doc_id, text in CORPUS.items()]
    read_alike(example, python_chain(langchain, answer, documents))


def test_a_langchain_js_document_is_named_by_its_id(langchain: Recorder) -> None:
    # Documents with a Document.id and no metadata, as a JS vector store returns them: LangChain.js lists
    # them in the retriever's output.value as {"pageContent", "metadata", "id"}, Python's as
    # {"page_content", ...}. Read as Python's only, each was named by its content hash ("doc-4498c5cf"),
    # in the capture, the exemplars and the citations, where the Python app's had their ids.
    example = extract(capture("langchain-document-id").trace())

    assert example is not None
    assert [context.id for context in example.contexts] == ["kb-refunds", "kb-shipping", "kb-support"]
    assert example.citations == ("kb-refunds",)
    documents = [Document(id=doc_id, page_content=text) for doc_id, text in CORPUS.items()]
    read_alike(example, python_chain(langchain, GROUNDED, documents))


SCORED = tuple(Context(doc_id, text, 1 - n / 2) for n, (doc_id, text) in enumerate(CORPUS.items()))
"""The documents of the GenAI retrieval span the app writes by hand, with its scores (1, 0.5 and 0, which
JSON.stringify writes `1` and `0`: whole numbers)."""


def test_the_ai_sdks_model_call_answers() -> None:
    # generateText under experimental_telemetry: an ai.generateText span holding one
    # ai.generateText.doGenerate, which records the messages in ai.prompt.messages and the reply in
    # ai.response.text. Unread, the trace had documents and no model call: scored as a search endpoint, its
    # made-up answer never judged.
    example = extract(capture("aisdk-proto").trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, SCORED, MADE_UP)
    assert example.citations == ("kb-refunds",)
    metrics = evaluate_example(example, LexicalJudge(), 5).metrics
    assert metrics["groundedness"] == 0.0  # neither sentence is in a document


def test_genai_spans_written_in_js_are_read() -> None:
    example = extract(capture("genai-json").trace())

    assert example is not None
    assert (example.question, example.contexts, example.answer) == (QUESTION, SCORED, MADE_UP)
    assert example.citations == ("kb-refunds",)


AI_PROMPT = json.dumps([
    {"role": "system", "content": f"Answer from the numbered context only.\n[1] {CORPUS['kb-refunds']}"},
    {"role": "user", "content": [{"type": "text", "text": QUESTION}]}])
"""The messages a provider call is sent, as the AI SDK records them."""


def ai_sdk_step(recorder: Recorder, prompt: str | None = AI_PROMPT, **attributes: str) -> None:
    """An ai.generateText.doGenerate span as the AI SDK writes it: `prompt` (None: recordInputs false) and
    `attributes`."""
    recorded = {} if prompt is None else {"ai.prompt.messages": prompt}
    with recorder.tracer.start_as_current_span("ai.generateText.doGenerate", attributes={
            "ai.operationId": "ai.generateText.doGenerate", "gen_ai.system": "openai.chat",
            **recorded, **attributes}):
        pass


def test_the_ai_sdks_last_step_answers_not_the_one_asking_for_a_tool(recorder: Recorder) -> None:
    tracer = recorder.tracer
    with tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER), \
            tracer.start_as_current_span("ai.generateText", attributes={"ai.operationId": "ai.generateText",
                                                                         "ai.response.text": GROUNDED}):
        ai_sdk_step(recorder, **{"ai.response.text": "Let me look that up.", "ai.response.toolCalls":
                                 '[{"toolCallId":"c1","toolName":"lookup","input":"{}"}]'})
        ai_sdk_step(recorder, **{"ai.response.text": GROUNDED})

    example = extract(recorder.trace())

    assert example is not None
    assert (example.question, example.answer) == (QUESTION, GROUNDED)


def test_an_ai_sdk_call_recording_no_output_names_its_switch(recorder: Recorder) -> None:
    # experimental_telemetry: {recordOutputs: false}
    with recorder.tracer.start_as_current_span("POST /ask", kind=SpanKind.SERVER):
        ai_sdk_step(recorder)

    with pytest.raises(ExtractionError) as raised:
        extract(recorder.trace())

    assert raised.value.field == "ai.response.text"
    assert "recordOutputs: false" in str(raised.value)


@pytest.mark.parametrize(("prompt", "note"), [
    (None, "the model call 'ai.generateText.doGenerate' records no input, so no question is known: the AI"),
    (json.dumps([{"role": "system", "content": "Answer briefly."}]), UNASKED)])
def test_an_ai_sdk_call_without_a_question_says_why(recorder: Recorder, prompt: str | None,
                                                   note: str) -> None:
    # recordInputs: false names its switch; a prompt recorded without a user turn is no missing record.
    ai_sdk_step(recorder, prompt, **{"ai.response.text": GROUNDED})
    trace = recorder.trace()

    example = extract(trace)

    assert example is not None and (example.question, example.answer) == ("", GROUNDED)
    assert unasked_note(trace).startswith(note)
