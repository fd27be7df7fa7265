"""Traces as large as the sidecar keeps (--max-spans-per-trace), nested deep, spread wide or looping.

Extraction runs on the sidecar's event loop: a trace of 1,000 model spans each nested in the one before
had taken 0.8 s, because each span's ancestors were walked span by span. These tests hold extraction to
the right answer on such traces and to work that grows with the spans, counted as reads of the spans'
fields rather than timed, so that a loaded machine cannot fail them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from ragmon.model import Context
from ragmon.semconv.extract import ExtractionError, extract
from ragmon.serve_config import ServeConfig
from ragmon.traces import Span, Trace

TRACE_ID = "5b8efff798038103d269b633813fc60c"
SPANS = ServeConfig().max_spans_per_trace
READS_PER_SPAN = 100
"""Reads of a span's fields that extraction may make, per span of the trace: a few dozen (its role asked
of each convention, its documents of each tier, its place in the tree), whatever the trace's shape; a
walk up the tree from each span makes them grow with the trace's size."""


def span_id(n: int) -> str:
    return f"{n + 1:016x}"


def kind_attributes(kind: str, n: int) -> dict[str, Any]:
    """OpenInference attributes of span `n`, each span's texts its own."""
    attributes: dict[str, Any] = {"openinference.span.kind": kind}
    if kind == "CHAIN":
        attributes["input.value"] = f"What does part {n} cover?"
    elif kind == "RETRIEVER":
        attributes |= {"input.value": f"part {n}", "retrieval.documents.0.document.id": f"doc-{n}",
                       "retrieval.documents.0.document.content": f"Part {n} covers the battery."}
    elif kind == "LLM":
        attributes |= {"llm.model_name": "m", "llm.input_messages.0.message.role": "user",
                       "llm.input_messages.0.message.content": f"What does step {n} say?",
                       "llm.output_messages.0.message.role": "assistant",
                       "llm.output_messages.0.message.content": f"Step {n} says yes."}
    return attributes


def nested(*kinds: str) -> Trace:
    """SPANS spans of the kinds in turn, each the parent of the next, each ending after those it holds."""
    return Trace(TRACE_ID, tuple(
        Span(TRACE_ID, span_id(n), span_id(n - 1) if n else None, f"span {n}", n, 2 * SPANS - n,
             attributes=kind_attributes(kinds[n % len(kinds)], n), resource={"service.name": "deep"})
        for n in range(SPANS)))


def side_by_side(kind: str) -> Trace:
    """A chain span and SPANS - 1 spans of `kind` in it, one after another."""
    root = Span(TRACE_ID, span_id(0), None, "span 0", 0, 2 * SPANS, attributes=kind_attributes("CHAIN", 0),
                resource={"service.name": "wide"})
    return Trace(TRACE_ID, (root, *(
        Span(TRACE_ID, span_id(n), span_id(0), f"span {n}", n, n + 1, attributes=kind_attributes(kind, n),
             resource={"service.name": "wide"})
        for n in range(1, SPANS))))


def looping(kind: str) -> Trace:
    """SPANS spans of `kind`, each the parent of the one before, and the first the last one's parent."""
    return Trace(TRACE_ID, tuple(
        Span(TRACE_ID, span_id(n), span_id((n + 1) % SPANS), f"span {n}", n, SPANS - n,
             attributes=kind_attributes(kind, n))
        for n in range(SPANS)))


def test_a_rag_trace_that_lost_spans_to_the_bound_is_an_error_naming_it() -> None:
    # The sidecar kept the first SPANS spans and refused 7 more: the chain that ends last (and holds the
    # answer) may be among them. Scored on what was kept, a made-up answer had read 1.0.
    kept = dataclasses.replace(side_by_side("RETRIEVER"), spans_lost=7)
    with pytest.raises(ExtractionError) as caught:
        extract(kept)
    assert caught.value.field == "spans"
    assert (f"trace {TRACE_ID}: span 'span 0' (span id 0000000000000001): 7 spans of this trace were "
            "refused, over the sidecar's limits for one trace") in str(caught.value)
    # Which limit refused them the trace does not keep: the counter's reason says, and both are named.
    assert ("(--max-spans-per-trace, or the trace's share of --max-buffer: ragmon_spans_rejected_total's "
            "reason too_many_spans or too_many_bytes says which; raise it if the app's requests are this "
            "large)") in str(caught.value)


def test_one_span_lost_is_told_in_the_singular() -> None:
    kept = dataclasses.replace(side_by_side("RETRIEVER"), spans_lost=1)
    with pytest.raises(ExtractionError) as caught:
        extract(kept)
    assert "1 span of this trace was refused, over the sidecar's limits for one trace" in str(caught.value)


def test_a_trace_that_lost_spans_but_shows_no_rag_work_is_not_rag() -> None:
    # A long trace of some other endpoint: it stays not_rag (None), not an error to alert on.
    plain = Trace(TRACE_ID, tuple(Span(TRACE_ID, span_id(n), span_id(n - 1) if n else None, f"db {n}", n,
                                       SPANS, attributes={"db.system": "postgresql"})
                                  for n in range(SPANS)), spans_lost=3)
    assert extract(plain) is None


def test_a_trace_that_lost_spans_is_told_so_in_place_of_the_error_the_loss_caused() -> None:
    # What was kept: a chain with a retriever and a model call that records no output (its output
    # attribute came in a span that was refused). The loss is the cause, and the error says so.
    trace = side_by_side("LLM")
    spans = [trace.spans[0], *(dataclasses.replace(span, attributes={
        k: v for k, v in span.attributes.items() if not k.startswith("llm.output")})
        for span in trace.spans[1:])]
    with pytest.raises(ExtractionError, match="model call records no output"):
        extract(Trace(TRACE_ID, tuple(spans)))
    with pytest.raises(ExtractionError) as caught:
        extract(Trace(TRACE_ID, tuple(spans), spans_lost=1))
    assert caught.value.field == "spans"


def test_a_model_call_of_nested_model_spans_is_read_from_its_innermost_span() -> None:
    # All 1,000 spans are one model call: its question and answer are those of the innermost span.
    example = extract(nested("LLM"))

    assert example is not None
    assert example.question == f"What does step {SPANS - 1} say?"
    assert example.answer == f"Step {SPANS - 1} says yes."
    assert example.contexts is None


def test_nested_chains_retrievers_tools_and_model_spans() -> None:
    # Span 0 is the only top chain (question); span 1 the outermost retriever, whose documents stand for
    # those of the 249 retrievers inside it; span 999 the innermost span of the one model call (answer).
    example = extract(nested("CHAIN", "RETRIEVER", "TOOL", "LLM"))

    assert example is not None
    assert example.question == "What does part 0 cover?"
    assert example.contexts == (Context(id="doc-1", text="Part 1 covers the battery."),)
    assert example.answer == f"Step {SPANS - 1} says yes."


def test_model_calls_side_by_side_are_answered_by_the_last_to_end() -> None:
    example = extract(side_by_side("LLM"))

    assert example is not None
    assert example.question == "What does part 0 cover?"
    assert example.answer == f"Step {SPANS - 1} says yes."


def test_retrievers_side_by_side_give_every_document_in_start_order() -> None:
    example = extract(side_by_side("RETRIEVER"))

    assert example is not None
    assert example.contexts == tuple(Context(id=f"doc-{n}", text=f"Part {n} covers the battery.")
                                     for n in range(1, SPANS))


def test_a_span_in_a_parent_loop_has_the_loops_other_spans_as_ancestors() -> None:
    # Chains a, b, c, each the child of the next and c of a, and a model call in a: each chain has chains
    # among its ancestors, so none is a top chain, and the question is the model's, not a chain's input.
    a, b, c = (Span(TRACE_ID, span_id(n), span_id((n + 1) % 3), f"chain {n}", n, 10,
                    attributes=kind_attributes("CHAIN", n)) for n in range(3))
    call = Span(TRACE_ID, span_id(3), a.span_id, "llm", 5, 6, attributes=kind_attributes("LLM", 3))

    example = extract(Trace(TRACE_ID, (a, b, c, call)))

    assert example is not None
    assert example.question == "What does step 3 say?"
    assert example.answer == "Step 3 says yes."


def counted(trace: Trace) -> tuple[Trace, list[int]]:
    """The trace with spans that count every read of their fields from now on, and that count."""
    reads = [0]

    class CountedSpan(Span):
        __slots__ = ()

        def __getattribute__(self, name: str) -> Any:
            reads[0] += 1
            return object.__getattribute__(self, name)

    spans = tuple(CountedSpan(*(getattr(span, field.name) for field in dataclasses.fields(Span)))
                  for span in trace.spans)
    reads[0] = 0
    return Trace(trace.trace_id, spans), reads


@pytest.mark.parametrize("trace", [
    pytest.param(nested("LLM"), id="nested model spans"),
    pytest.param(nested("CHAIN", "RETRIEVER", "TOOL", "LLM"), id="nested chains, retrievers, tools, models"),
    pytest.param(nested("AGENT", "TOOL", "RETRIEVER"), id="nested agents, tools, retrievers"),
    pytest.param(side_by_side("RETRIEVER"), id="retrievers side by side"),
    pytest.param(looping("LLM"), id="a loop of model spans"),
])
def test_extraction_reads_each_span_a_bounded_number_of_times(trace: Trace) -> None:
    spans, reads = counted(trace)

    extract(spans)

    assert reads[0] <= READS_PER_SPAN * SPANS, f"{reads[0] / SPANS:.0f} reads per span"
