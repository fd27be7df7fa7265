"""Dataset format 4, OTLP/JSON lines: spans recorded by the real OTel SDK, encoded by the SDK's own OTLP
encoder, written as the Collector's file exporter writes them (one ExportTraceServiceRequest per line,
hex ids), with traces split across lines and children before their parents.

The traces, and what the lexical judge makes of them (worked out by hand from the texts below):
- A, "returns": a CHAIN root in this process; the answer quotes RETURNS_1 verbatim: 1 claim, supported.
  `ragmon.relevant_ids` = [d-returns], retrieved first: hit_rate 1.
- B, "shipping": a SERVER root under a caller's traceparent (remote parent), a CHAIN below it; the answer
  is SHIPPING verbatim (supported) plus EXPRESS, whose numbers 24 and 9 no context holds: 1 of 2.
- C, a health check with no RAG span: not an example, skipped as not_rag.
- D, "receipt": retriever + LLM under a root of no RAG kind, no chain; the answer is RETURNS_2 with a
  `[d-returns]` marker: supported, and the marker is its citation.
Groundedness mean = (1 + 1/2 + 1) / 3 = 5/6; hallucination_rate = 1/6.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from otlp_json import otlp_json_doc, proto_named_doc

from ragmon.datasets import NOT_RAG, load
from ragmon.errors import InputError
from ragmon.model import Context, Example

SERVICE = "shop-assistant"
KIND = "openinference.span.kind"
RETURNS_1 = "Items can be returned within 30 days of delivery."
RETURNS_2 = "A receipt is required for every return."
SHIPPING = "Standard shipping takes 3 to 5 business days."
EXPRESS = "Express delivery arrives within 24 hours for a 9 dollar fee."
RETURNS_DOC = Context("d-returns", f"{RETURNS_1} {RETURNS_2}", 0.9)
SHIPPING_DOC = Context("d-shipping", SHIPPING, 0.4)
B_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
"""B's trace id, chosen by its caller through traceparent, as `ragmon replay --target` does."""

QUESTIONS = {"A": "How long do I have to return an item?", "B": "When does my order arrive?",
             "D": "Do I need a receipt?"}
ANSWERS = {"A": RETURNS_1, "B": f"{SHIPPING} {EXPRESS}", "D": f"{RETURNS_2} [d-returns]"}
CONTEXTS = {"A": (RETURNS_DOC, SHIPPING_DOC), "B": (SHIPPING_DOC,), "D": (RETURNS_DOC,)}


class Recorded:
    """The SDK's finished spans of traces A-D, by trace letter and span name."""

    def __init__(self) -> None:
        exporter = InMemorySpanExporter()
        provider = TracerProvider(resource=Resource.create({"service.name": SERVICE}))
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        self._tracer = provider.get_tracer("tests.datasets")
        with self._tracer.start_as_current_span("rag", attributes={
                KIND: "CHAIN", "input.value": QUESTIONS["A"], "output.value": ANSWERS["A"],
                "ragmon.relevant_ids": ["d-returns"]}):
            self._retrieve_and_answer("A")
        traceparent = f"00-{B_TRACE_ID}-00f067aa0ba902b7-01"
        caller = TraceContextTextMapPropagator().extract({"traceparent": traceparent})
        with self._tracer.start_as_current_span("POST /ask", context=caller, kind=SpanKind.SERVER), \
                self._tracer.start_as_current_span("rag", attributes={
                    KIND: "CHAIN", "input.value": QUESTIONS["B"], "output.value": ANSWERS["B"]}):
            self._retrieve_and_answer("B")
        with self._tracer.start_as_current_span("GET /healthz", kind=SpanKind.SERVER):
            pass
        with self._tracer.start_as_current_span("handle"):
            self._retrieve_and_answer("D")
        provider.shutdown()
        spans = exporter.get_finished_spans()
        trace_letters: dict[int, str] = {}
        for span in spans:  # the traces end in the order A, B, C, D
            if span.context.trace_id not in trace_letters:
                trace_letters[span.context.trace_id] = "ABCD"[len(trace_letters)]
        self.spans = {(trace_letters[s.context.trace_id], s.name): s for s in spans}

    def _retrieve_and_answer(self, letter: str) -> None:
        documents: dict[str, Any] = {KIND: "RETRIEVER", "input.value": QUESTIONS[letter]}
        for i, doc in enumerate(CONTEXTS[letter]):
            documents |= {f"retrieval.documents.{i}.document.id": doc.id,
                          f"retrieval.documents.{i}.document.content": doc.text,
                          f"retrieval.documents.{i}.document.score": doc.score}
        with self._tracer.start_as_current_span("retrieve", attributes=documents):
            pass
        with self._tracer.start_as_current_span("llm", attributes={
                KIND: "LLM", "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": ANSWERS[letter]}):
            pass

    def trace_id(self, letter: str) -> str:
        return format(self.spans[letter, "llm" if letter != "C" else "GET /healthz"].context.trace_id, "032x")

    def __getitem__(self, key: tuple[str, str]) -> ReadableSpan:
        return self.spans[key]


@pytest.fixture(scope="module")
def r() -> Recorded:
    return Recorded()


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    return otlp_json_doc(encode_spans(spans))


def write_lines(path: Path, docs: Sequence[Any]) -> Path:
    path.write_text("".join(json.dumps(doc) + "\n" for doc in docs), encoding="utf-8")
    return path


def split_file(path: Path, r: Recorded) -> Path:
    """Three export batches; each trace's children come a line before its root, and line 3 repeats one
    span of A, as an exporter retrying after a lost acknowledgement does."""
    return write_lines(path, [
        otlp_json([r["A", "retrieve"], r["A", "llm"], r["B", "retrieve"]]),
        otlp_json([r["B", "llm"], r["B", "rag"], r["C", "GET /healthz"], r["A", "rag"]]),
        otlp_json([r["B", "POST /ask"], r["D", "retrieve"], r["D", "llm"], r["D", "handle"], r["A", "llm"]]),
    ])


def test_traces_split_across_lines_become_the_examples_they_describe(tmp_path: Path, r: Recorded) -> None:
    skipped: list[tuple[str, str]] = []
    examples = list(load([split_file(tmp_path / "traces.otlp.jsonl", r)], skipped=skipped))

    assert r.trace_id("B") == B_TRACE_ID  # the caller's trace id is kept
    assert examples == [
        Example(r.trace_id("A"), QUESTIONS["A"], CONTEXTS["A"], ANSWERS["A"],
                relevant_ids=frozenset({"d-returns"}), pipeline=SERVICE),
        Example(B_TRACE_ID, QUESTIONS["B"], CONTEXTS["B"], ANSWERS["B"], pipeline=SERVICE),
        Example(r.trace_id("D"), QUESTIONS["D"], CONTEXTS["D"], ANSWERS["D"], citations=("d-returns",),
                pipeline=SERVICE),
    ]
    assert skipped == [(r.trace_id("C"), NOT_RAG)]


def test_replay_scores_otlp_lines_exactly_like_the_same_examples_as_ragmon_jsonl(
        ragmon_cmd: list[str], tmp_path: Path, r: Recorded) -> None:
    otlp_path = split_file(tmp_path / "traces.otlp.jsonl", r)
    jsonl_path = write_lines(tmp_path / "same.jsonl", [
        {"id": r.trace_id("A"), "question": QUESTIONS["A"], "answer": ANSWERS["A"],
         "contexts": [{"id": c.id, "text": c.text, "score": c.score} for c in CONTEXTS["A"]],
         "relevant_ids": ["d-returns"]},
        {"id": B_TRACE_ID, "question": QUESTIONS["B"], "answer": ANSWERS["B"],
         "contexts": [{"id": c.id, "text": c.text, "score": c.score} for c in CONTEXTS["B"]]},
        {"id": r.trace_id("D"), "question": QUESTIONS["D"], "answer": ANSWERS["D"],
         "contexts": [{"id": c.id, "text": c.text, "score": c.score} for c in CONTEXTS["D"]],
         "citations": ["d-returns"]},
    ])
    runs = {}
    for name, path in (("otlp", otlp_path), ("jsonl", jsonl_path)):
        out = tmp_path / name
        done = subprocess.run([*ragmon_cmd, "replay", str(path), "--gate", "groundedness=0.9",
                               "--json", str(out / "report.json"), "--markdown", str(out / "report.md")],
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 1, done.stderr  # 5/6 < 0.9
        runs[name] = (done, json.loads((out / "report.json").read_text(encoding="utf-8")),
                      (out / "report.md").read_text(encoding="utf-8"))

    (otlp_run, otlp, otlp_md), (_, jsonl, _) = runs["otlp"], runs["jsonl"]
    assert otlp["aggregates"]["groundedness"]["mean"] == pytest.approx(5 / 6)
    assert otlp["aggregates"]["hallucination_rate"]["mean"] == pytest.approx(1 / 6)
    assert (otlp["aggregates"]["hit_rate"]["mean"], otlp["aggregates"]["hit_rate"]["n"]) == (1.0, 1)
    assert otlp["aggregates"]["citation_accuracy"]["mean"] == 1.0
    assert otlp["aggregates"] == jsonl["aggregates"]
    assert otlp["results"] == jsonl["results"]
    assert otlp["gates"] == jsonl["gates"]

    not_rag = r.trace_id("C")
    assert otlp["skipped"] == [{"id": not_rag, "reason": "not_rag"}] and jsonl["skipped"] == []
    assert f"- `{not_rag}`: not_rag" in otlp_md
    assert f"skipped 1 recorded trace(s) that are not RAG (no retrieval, no generation): {not_rag}" \
        in otlp_run.stderr


def proto_named_line(spans: Sequence[ReadableSpan]) -> str:
    """The SDK's request as protobuf's own JSON writer gives it, proto field names, ids in hex."""
    return json.dumps(proto_named_doc(encode_spans(spans)))


def test_lines_written_with_proto_field_names_give_the_same_examples(tmp_path: Path, r: Recorded) -> None:
    # Line 1 had been read as one ragmon record, refused as having no 'id': nothing was scored.
    batches = [[r["A", "retrieve"], r["A", "llm"], r["B", "retrieve"]],
               [r["B", "llm"], r["B", "rag"], r["C", "GET /healthz"], r["A", "rag"]],
               [r["B", "POST /ask"], r["D", "retrieve"], r["D", "llm"], r["D", "handle"]]]
    snake = tmp_path / "traces.proto-names.jsonl"
    snake.write_text("".join(proto_named_line(batch) + "\n" for batch in batches), encoding="utf-8")
    assert '"resource_spans"' in snake.read_text(encoding="utf-8")
    camel = write_lines(tmp_path / "traces.otlp.jsonl", [otlp_json(batch) for batch in batches])

    from_snake: list[tuple[str, str]] = []
    from_camel: list[tuple[str, str]] = []
    examples = list(load([snake], skipped=from_snake))
    assert examples == list(load([camel], skipped=from_camel))
    assert [example.id for example in examples] == [r.trace_id("A"), B_TRACE_ID, r.trace_id("D")]
    assert [example.answer for example in examples] == [ANSWERS["A"], ANSWERS["B"], ANSWERS["D"]]
    assert examples[0].contexts == CONTEXTS["A"]
    assert from_snake == from_camel == [(r.trace_id("C"), NOT_RAG)]


def test_a_proto_named_line_after_a_camel_case_one_is_read_and_pretty_printed_ones_are_refused(
        tmp_path: Path, r: Recorded) -> None:
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(json.dumps(otlp_json([r["A", "retrieve"], r["A", "llm"]])) + "\n"
                     + proto_named_line([r["A", "rag"]]) + "\n", encoding="utf-8")
    (example,) = load([mixed])
    assert (example.id, example.question, example.answer) == (r.trace_id("A"), QUESTIONS["A"], ANSWERS["A"])

    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(proto_named_line([r["A", "llm"]])), indent=2), encoding="utf-8")
    assert "one ExportTraceServiceRequest per line" in str(error_of(pretty))


# --- errors ------------------------------------------------------------------------------------------


def error_of(path: Path) -> InputError:
    with pytest.raises(InputError) as info:
        list(load([path]))
    return info.value


def test_bad_lines_name_file_line_and_json_path(tmp_path: Path, r: Recorded) -> None:
    good = otlp_json([r["A", "retrieve"]])
    path = tmp_path / "t.jsonl"

    path.write_text(json.dumps(good) + "\n" + json.dumps(good)[:-1] + "\n", encoding="utf-8")
    err = error_of(path)
    assert (err.source, err.line) == (str(path), 2) and "invalid JSON" in str(err)

    bad = json.loads(json.dumps(good))
    bad["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["name"] = 5
    err = error_of(write_lines(path, [good, bad]))
    assert str(err) == f"{path}:2: resourceSpans[0].scopeSpans[0].spans[0].name: not a string"

    err = error_of(write_lines(path, [good, {"id": "q1", "question": "Return window?"}]))
    assert err.line == 2 and "expected an OTLP/JSON ExportTraceServiceRequest" in str(err)


def test_a_span_with_bad_ids_stops_the_load(tmp_path: Path, r: Recorded) -> None:
    # The sidecar would accept the other span and count this one; a golden file must not lose it quietly.
    doc = otlp_json([r["A", "retrieve"], r["A", "llm"]])
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["traceId"] = "abc"
    err = error_of(write_lines(tmp_path / "t.jsonl", [otlp_json([r["B", "llm"]]), doc]))
    assert err.line == 2
    assert str(err).endswith("1 span(s) with unusable ids: resourceSpans[0].scopeSpans[0].spans[1] 'llm': "
                             "traceId is not 32 hex digits")


def test_an_unreadable_attribute_names_file_line_trace_and_span(tmp_path: Path, r: Recorded) -> None:
    broken = otlp_json([r["A", "llm"]])
    span = broken["resourceSpans"][0]["scopeSpans"][0]["spans"][0]
    span["attributes"].append({"key": "ragmon.relevant_ids", "value": {"stringValue": "[not json"}})
    path = write_lines(tmp_path / "t.jsonl", [otlp_json([r["A", "retrieve"]]), broken])
    err = error_of(path)
    assert (err.source, err.line, err.field) == (str(path), 2, "ragmon.relevant_ids")
    assert f"trace {r.trace_id('A')}" in str(err)
    assert f"span 'llm' (span id {span['spanId']})" in str(err)
    assert "not valid JSON" in str(err)


def test_empty_and_pretty_printed_otlp_files_are_refused(tmp_path: Path, r: Recorded) -> None:
    err = error_of(write_lines(tmp_path / "empty.jsonl", [{"resourceSpans": []}]))
    assert "contains no spans" in str(err)
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(otlp_json([r["A", "llm"]]), indent=2), encoding="utf-8")
    assert "one ExportTraceServiceRequest per line" in str(error_of(pretty))


# --- found in an audit of import formats: a trace over two rotated files was assembled file by file -----


@pytest.mark.parametrize("first_file", [("retrieve",), ("rag", "retrieve"), ("retrieve", "llm")],
                         ids=["retriever", "chain+retriever", "retriever+llm"])
def test_a_trace_over_two_files_is_one_example(tmp_path: Path, r: Recorded,
                                               first_file: tuple[str, ...]) -> None:
    # Before, each file was assembled alone: exit 2 "its parent ... never arrived ... at serve's
    # --decision-wait or replay's --trace-wait", or "duplicate example id" (field 'id'), or the trace
    # scored from one file and listed skipped as not_rag from the other.
    names = ("rag", "retrieve", "llm")
    first = write_lines(tmp_path / "traces.1.jsonl", [otlp_json([r["A", name] for name in first_file])])
    second = write_lines(tmp_path / "traces.2.jsonl", [
        otlp_json([*(r["A", name] for name in names if name not in first_file), r["C", "GET /healthz"]])])
    skipped: list[tuple[str, str]] = []
    assert list(load([first, second], skipped=skipped)) == [
        Example(r.trace_id("A"), QUESTIONS["A"], CONTEXTS["A"], ANSWERS["A"],
                relevant_ids=frozenset({"d-returns"}), pipeline=SERVICE)]
    assert skipped == [(r.trace_id("C"), NOT_RAG)]


def test_a_trace_whose_parent_no_file_holds_is_not_blamed_on_a_wait(tmp_path: Path, r: Recorded) -> None:
    # Before: "... the trace was decided without them (the request was still running when it was decided,
    # at serve's --decision-wait or replay's --trace-wait ...)", a wait no replay of files has.
    records = write_lines(tmp_path / "golden.jsonl", [{"id": "q1", "question": "Return window?"}])
    path = write_lines(tmp_path / "traces.jsonl", [otlp_json([r["A", "retrieve"]])])
    retrieve = r["A", "retrieve"]
    with pytest.raises(InputError) as info:
        list(load([path, records]))
    err = info.value
    assert (err.source, err.line, err.field) == (str(path), 1, "parent_span_id")
    assert str(err) == (
        f"{path}:1: trace {r.trace_id('A')}: span 'retrieve' (span id {retrieve.context.span_id:016x}): its "
        f"parent (parent_span_id {r['A', 'rag'].context.span_id:016x}) is in none of the files read, nor the "
        f"answer: the recording holds no more of the trace (a file the Collector's file exporter wrote left "
        f"out, a rotated one say, or the request still running when the recording stopped; or a streamed "
        f"answer's client stopped reading, which ends none of the spans around the model call), so its "
        f"documents are not scored alone")


@pytest.mark.parametrize("recorded", [False, True], ids=["golden-set", "recorded-traces"])
def test_the_otlp_decoder_is_imported_by_a_replay_of_recorded_traces_alone(
        tmp_path: Path, r: Recorded, recorded: bool) -> None:
    """protobuf's generated classes, the Assembler and span extraction took ~0.13 s of CPU of each `ragmon
    replay` before it read its first line, though a golden set of ragmon records needs none of them."""
    dataset = (split_file(tmp_path / "traces.otlp.jsonl", r) if recorded
               else Path(__file__).parents[2] / "examples" / "golden.jsonl")
    otlp = ["google.protobuf", "ragmon.otlp.decode", "ragmon.semconv.extract", "ragmon.traces"]
    code = ("import sys\nfrom ragmon.cli import main\nsys.argv = ['ragmon', 'replay', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"print(sorted({set(otlp)!r} & set(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, str(dataset)], capture_output=True, text=True)
    assert "PASS" in done.stdout
    assert done.stderr.splitlines()[-1] == str(otlp if recorded else [])
