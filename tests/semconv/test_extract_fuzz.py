"""Property: whatever values the spans of a trace carry under the conventions' attribute names, extraction
gives an Example, says the trace is not RAG (None), or raises an ExtractionError naming the span and the
attribute; never another exception.

Traces are drawn as a few spans shaped like OpenInference, GenAI, OpenLLMetry or ragmon spans: each
attribute under a name some convention reads, with a value of any OTLP type (as the decoders hand them
on: str, bool, int64, float, bytes, arrayValue as list, kvlistValue as dict), or JSON text of one, or
text that breaks a parser (nesting thousands deep, JSON cut short, Python reprs).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

from ragmon.semconv.extract import ExtractionError, extract
from ragmon.traces import Span, SpanEvent, Trace

FUZZ = settings(derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

TRACE_ID = "0" * 31 + "1"
SPAN_IDS = [format(n, "016x") for n in range(1, 6)]

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=10) | st.sampled_from([
    "", " ", "__REDACTED__", "assistant: Paris.", "Paris is the capital [1] [doc-1] [2, 9].", "doc-1",
    "[" * 3000, "{" * 3000, '{"a": ' * 3000, "1" + "0" * 400, "-" * 20_000 + "1", "(" * 300,
    "{'id': 'x', 'text': 'y'}", '{"documents": [{"page_content": "t"', "NaN", "1e999",
    '[{"id": "a", "text": "t", "score": 1e999}]',
])
"""Text as a decoder hands it on: any characters but lone surrogates, which both decoders replace."""
SCALARS = (st.none() | st.booleans() | TEXT | st.integers(-(2**63), 2**63 - 1)
           | st.floats(allow_nan=True, allow_infinity=True) | st.binary(max_size=4))
PLAIN_KEYS = st.sampled_from([
    "id", "text", "content", "page_content", "score", "metadata", "source", "doc_id", "documents", "role",
    "parts", "type", "query", "question", "input", "output", "answer", "inputs", "outputs", "args", "kwargs",
]) | st.text(max_size=4)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(PLAIN_KEYS, inner, max_size=3), max_leaves=4)


def as_json(value: Any) -> str:
    return json.dumps(value, default=lambda b: b.hex())  # bytes have no JSON form; NaN stays a literal


ATTRIBUTE_VALUES = VALUES | VALUES.map(as_json)

KINDS = st.sampled_from(["CHAIN", "AGENT", "RETRIEVER", "RERANKER", "LLM", "retriever", "TOOL"]) | VALUES
INDEXES = st.sampled_from(["0", "1", "10", "01", "\u00b2", "\u0663", "-1", "x", ""])
"""`\u00b2` (superscript two) is a digit to str.isdigit but no number to int(); `\u0663` is Arabic-Indic 3."""
INDEXED = {
    "retrieval.documents.{}.document.": ["content", "id", "score", "metadata"],
    "reranker.output_documents.{}.document.": ["content", "id", "score", "metadata"],
    "llm.output_messages.{}.message.": ["content", "role", "contents.0.message_content.text"],
    "llm.input_messages.{}.message.": ["content", "role", "contents.0.message_content.type"],
    "llm.choices.{}.": ["completion.text"],
    "gen_ai.prompt.{}.": ["content", "role"],
    "gen_ai.completion.{}.": ["content"],
}
NAMED = {
    "openinference.span.kind": KINDS,
    "gen_ai.operation.name": st.sampled_from(["retrieval", "chat", "invoke_agent", "vector_db_retrieve"])
    | VALUES,
    "traceloop.span.kind": st.sampled_from(["workflow", "agent", "task"]) | VALUES,
    "llm.request.type": st.just("chat") | VALUES,
    "ai.operationId": st.sampled_from(["ai.generateText.doGenerate", "ai.streamObject.doStream"]) | VALUES,
    **{name: ATTRIBUTE_VALUES for name in (
        "input.value", "output.value", "reranker.query", "gen_ai.retrieval.documents",
        "gen_ai.retrieval.query.text", "gen_ai.input.messages", "gen_ai.output.messages",
        "traceloop.entity.input", "traceloop.entity.output",
        "ragmon.question", "ragmon.answer", "ragmon.contexts", "ragmon.citations", "ragmon.relevant_ids",
        "ragmon.ground_truth", "ragmon.pipeline", "ai.prompt.messages", "ai.response.text",
        "ai.response.object", "ai.response.toolCalls")},
}


@st.composite
def attributes(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in draw(st.lists(st.sampled_from(sorted(NAMED)), max_size=4)):
        out[name] = draw(NAMED[name])
    for _ in range(draw(st.integers(0, 3))):
        prefix = draw(st.sampled_from(sorted(INDEXED)))
        out[prefix.format(draw(INDEXES)) + draw(st.sampled_from(INDEXED[prefix]))] = draw(ATTRIBUTE_VALUES)
    return out


RESULT_EVENT = st.builds(SpanEvent, st.sampled_from(["db.query.result", "other"]), st.integers(0, 10),
                         st.fixed_dictionaries({}, optional={
                             f"db.query.result.{field}": ATTRIBUTE_VALUES
                             for field in ("id", "document", "score", "metadata")}))


@st.composite
def traces(draw: st.DrawFn) -> Trace:
    count = draw(st.integers(1, 3))
    spans = []
    for index in range(count):
        # A parent among the spans, a span never seen, none, or itself (a malformed cycle).
        parent = draw(st.sampled_from([None, "f" * 16, *SPAN_IDS[:count]]))
        spans.append(Span(
            trace_id=TRACE_ID, span_id=SPAN_IDS[index], parent_span_id=parent,
            name=draw(st.sampled_from(["retrieve", "llm", "chain", "a\nb"])),
            start_time_unix_nano=draw(st.integers(0, 5)), end_time_unix_nano=draw(st.integers(0, 9)),
            kind=draw(st.integers(0, 5)), attributes=draw(attributes()),
            events=tuple(draw(st.lists(RESULT_EVENT, max_size=1))),
            resource=draw(st.fixed_dictionaries({}, optional={"service.name": VALUES})),
            status_code=draw(st.integers(0, 2))))
    return Trace(TRACE_ID, tuple(spans))


def extract_or_named_error(trace: Trace) -> str:
    try:
        found = extract(trace)
    except ExtractionError as exc:
        span = next(s for s in trace.spans if s.span_id == exc.span_id)
        message = str(exc)
        assert message.startswith(f"trace {TRACE_ID}: span {span.name!r} (span id {span.span_id}): "), message
        # The field is the attribute, or the item within it that the message names (`...document.content`
        # for "...document has no text", `db.query.result[0].metadata` on an event).
        attribute = exc.field.split("[")[0].split(" ")[0]
        assert attribute in message or attribute.rsplit(".", 1)[0] in message, (exc.field, message)
        assert "\n" not in message
        return "error"
    if found is None:
        return "not RAG"
    for text in (found.question, found.answer or "", *(c.id + c.text for c in found.contexts or ())):
        text.encode("utf-8")
    return "example"


def _trace(**attributes: Any) -> Trace:
    return Trace(TRACE_ID, (Span(TRACE_ID, SPAN_IDS[0], None, "retrieve", 1, 2, attributes=attributes),))


RETRIEVER = {"openinference.span.kind": "RETRIEVER"}


@settings(FUZZ, max_examples=400)
@given(trace=traces())
@example(trace=_trace(**RETRIEVER, **{"retrieval.documents.\u00b2.document.content": "x"}))  # int("\u00b2")
@example(trace=_trace(**{"ragmon.contexts": "[" * 3000}))  # RecursionError in json
@example(trace=_trace(**{"gen_ai.operation.name": "chat", "gen_ai.output.messages": "[" * 3000}))
@example(trace=_trace(**{"openinference.span.kind": "LLM", "output.value": "{" * 3000}))
@example(trace=_trace(**{"ragmon.contexts": '[{"text": "t", "score": 1%s}]' % ("0" * 400)}))  # float(int)
@example(trace=_trace(**RETRIEVER, **{"retrieval.documents.0.document.metadata": "-" * 20_000 + "1"}))
# Values looked up in a set as they came: a TypeError, and the trace lost as an error of ragmon's.
@example(trace=_trace(**{"ragmon.question": "q", "ragmon.contexts": '[{"id": "d", "text": "t"}]',
                         "ragmon.answer": "t", "ai.operationId": ["ai.generateText.doGenerate"]}))
@example(trace=_trace(**{"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(
    [{"role": "user", "parts": [{"type": ["text"], "content": "hi"}]}]), "gen_ai.output.messages": json.dumps(
    [{"role": "assistant", "parts": [{"type": "text", "content": "2 years."}]}])}))
def test_any_attribute_values_give_an_example_none_or_a_named_error(trace: Trace) -> None:
    event(extract_or_named_error(trace))


def test_json_nested_too_deeply_is_an_error_naming_the_attribute() -> None:
    try:
        extract(_trace(**{"ragmon.question": "q", "ragmon.contexts": "[" * 3000 + "]" * 3000}))
    except ExtractionError as exc:
        assert exc.field == "ragmon.contexts" and "nested too deeply" in str(exc)
    else:
        raise AssertionError("no ExtractionError")


def _contexts_nested(depth: int) -> str:
    """`ragmon.contexts` of one document whose metadata brings the list, the document and itself to `depth`
    arrays and objects within each other."""
    return '[{"id": "d", "text": "t", "metadata": ' + "[" * (depth - 2) + "]" * (depth - 2) + "}]"


def test_json_in_an_attribute_is_read_to_128_levels() -> None:
    found = extract(_trace(**{"ragmon.question": "q", "ragmon.contexts": _contexts_nested(128)}))
    assert found is not None and [(c.id, c.text) for c in found.contexts or ()] == [("d", "t")]


def test_brackets_inside_a_json_string_are_no_nesting() -> None:
    # 300 brackets in a document's text, after an escaped quote and an escaped backslash, are text.
    text = '\\"q\\\\ ' + "[" * 300 + "{" * 300
    contexts = '[{"id": "d", "text": "' + text + '"}]'
    found = extract(_trace(**{"ragmon.question": "q", "ragmon.contexts": contexts}))
    assert found is not None and [c.text for c in found.contexts or ()] == ['"q\\ ' + "[" * 300 + "{" * 300]


@pytest.mark.parametrize("depth", [129, 3000])
def test_json_in_an_attribute_past_128_levels_is_an_error_on_every_python(depth: int) -> None:
    # json's own limit was each Python's: 3.11 refused from ~990 levels, 3.12 from ~1,500, and 3.13 read
    # 3,000, so the trace was an error on one Python ("nested too deeply") and not on the next, or
    # another ("is neither an object nor a string"); 128 is the bound of an OTLP attribute's own arrays.
    with pytest.raises(ExtractionError) as info:
        extract(_trace(**{"ragmon.question": "q", "ragmon.contexts": _contexts_nested(depth)}))
    assert info.value.field == "ragmon.contexts"
    assert str(info.value).endswith("): attribute 'ragmon.contexts' is JSON nested too deeply (more than 128 "
                                    "arrays and objects within each other)")


def test_document_metadata_as_json_past_128_levels_is_an_error_naming_it() -> None:
    # Metadata names an unnamed document (OpenInference's): nested 3,000 deep, 3.13 read it as an object,
    # 3.11 called it "not an object" (json gave up, then Python's parser did).
    metadata = '{"a": ' * 3000 + "1" + "}" * 3000
    with pytest.raises(ExtractionError) as info:
        extract(_trace(**RETRIEVER, **{"retrieval.documents.0.document.content": "t",
                                       "retrieval.documents.0.document.metadata": metadata}))
    where = "retrieval.documents.0.document.metadata"
    assert info.value.field == where
    assert str(info.value).endswith(f"): {where} is JSON nested too deeply (more than 128 arrays and objects "
                                    "within each other)")


@pytest.mark.parametrize("score", ["1" + "0" * 400, "1e999", "NaN", "-Infinity"])
def test_a_score_nan_infinite_or_beyond_the_largest_double_is_no_score(score: str) -> None:
    # 10**400 is past the largest double (about 1.8e308) and overflowed float(); NaN and infinity were
    # kept, where a golden record of the same retrieval reads them as no score.
    found = extract(_trace(**{"ragmon.contexts": f'[{{"id": "d", "text": "t", "score": {score}}}]'}))
    assert found is not None and found.contexts is not None
    assert found.contexts[0].score is None


def test_json_python_will_not_read_is_named_as_such_not_as_invalid() -> None:
    # A number of 5,000 digits is valid JSON past int()'s limit: "is not valid JSON" had sent the app's
    # author looking for a syntax slip.
    contexts = '[{"id": "d", "text": "t", "score": 1%s}]' % ("0" * 5000)
    try:
        extract(_trace(**{"ragmon.question": "q", "ragmon.contexts": contexts}))
    except ExtractionError as exc:
        assert exc.field == "ragmon.contexts"
        assert str(exc).endswith("attribute 'ragmon.contexts' is JSON that cannot be read (Exceeds the limit "
                                 "(4300 digits) for integer string conversion)")
    else:
        raise AssertionError("no ExtractionError")
