"""The sidecar and replay agree: what `ragmon serve --capture FILE` scored, `ragmon replay FILE` scores alike.

A user runs the sidecar beside their app with `--capture-below all`, then replays the capture in CI, and
expects each captured example to be the example the sidecar scored, with the same figures. Here the real
CLI's `ragmon serve` receives varied traces from the OpenTelemetry SDK's own OTLP/HTTP exporter, each from
a service of its own so that its figures are its pipeline's series on /metrics; the capture is replayed by
the real CLI with `--json`, and every example's metrics, claim counts and unsupported sentences are
compared with what the sidecar exported and recorded for it. The same spans, written as the Collector's
file exporter writes them (OTLP/JSON lines), replay to the same figures too. One run serves every test.
"""

from __future__ import annotations

import asyncio
import json
import math
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer
from otlp_json import otlp_json_doc
from polling import wait_metrics
from sdk_export import export
from serve_cli import serve_cli

from ragmon.cli import main
from ragmon.model import METRIC_NAMES
from ragmon.scrape import Samples, total

KIND = "openinference.span.kind"
WARRANTY = "The warranty lasts 2 years from the date of purchase."
Build = Callable[[Tracer], None]


# --- the traces: one service (and so one pipeline label) each ------------------------------------------

def ragmon_span(tracer: Tracer, **attributes: Any) -> None:
    """ragmon's own convention, every attribute on one request span, as the README's `curl` example sends
    it; `contexts` is given as the list the app serialises."""
    named = {f"ragmon.{key}": json.dumps(value) if key == "contexts" else value
             for key, value in attributes.items()}
    with tracer.start_as_current_span("rag", attributes=named):
        pass


def duplicates(tracer: Tracer) -> None:
    """kb-1 retrieved twice (both ranks kept), an empty document, a citation of a document never
    retrieved, a relevant document retrieved at rank 4 and one never retrieved."""
    ragmon_span(tracer, question="How long does the warranty last?",
                contexts=[{"id": "kb-1", "text": WARRANTY, "score": 0.9},
                          {"id": "kb-1", "text": WARRANTY, "score": 0.9},
                          {"id": "kb-empty", "text": "", "score": 0.5},
                          {"id": "kb-3", "text": "Returns are accepted within 30 days.", "score": 0.1}],
                answer="The warranty lasts 2 years. It also covers damage on the moon.",
                citations=["kb-1", "kb-404"], relevant_ids=["kb-3", "kb-7"])


def cjk(tracer: Tracer) -> None:
    ragmon_span(tracer, question="保証期間はどれくらいですか？",
                contexts=[{"id": "文書-1", "text": "保証期間は購入日から2年間です。", "score": 0.8},
                          {"id": "doc-é", "text": "Die Garantie gilt 2 Jahre ab Kaufdatum. 🛡️", "score": 0.7}],
                answer="保証期間は購入日から2年間です。Die Garantie gilt 2 Jahre. 月面での損傷も対象です。",
                citations=["文書-1"], relevant_ids=["文書-1"])


def odd_text(tracer: Tracer) -> None:
    """A whole-number id, a NaN and an infinite score (JSON numbers the app's encoder writes), a blank id
    (named by its content hash), a line separator, NEL, NUL and an ANSI escape inside the texts."""
    with tracer.start_as_current_span("rag", attributes={
            "ragmon.question": "Wie lange gilt die Garantie?\u2028Und der Versand?",
            "ragmon.contexts": ('[{"id": 12, "text": "Die Garantie\\u2028gilt 2 Jahre.\\u0000\\u001b[31m", '
                                '"score": NaN}, {"id": "  ", "text": "Versand dauert 5 Tage.", '
                                '"score": Infinity}]'),
            "ragmon.answer": "Die Garantie gilt 2 Jahre.\x85Versand dauert 5 Tage. Der Mond ist aus Käse.",
            "ragmon.citations": [12], "ragmon.relevant_ids": [12, 13]}):
        pass


def abstention(tracer: Tracer) -> None:
    ragmon_span(tracer, question="What is the CEO's home address?",
                contexts=[{"id": "kb-1", "text": "Our office is open 9am to 5pm.", "score": 0.2}],
                answer="I don't know: the provided documents do not say.", relevant_ids=[])


def long_answer(tracer: Tracer) -> None:
    docs = [{"id": "spec", "score": 0.95, "text": (
                "The charger delivers 65 W over USB-C. It weighs 180 g and measures 6 cm x 6 cm x 3 cm. "
                "It works from 100 to 240 V at 50/60 Hz.")},
            {"id": "ship", "score": 0.6, "text": (
                "Orders over $50 ship free. Standard delivery takes 3 to 5 business days. "
                "Express delivery costs $12.99 and takes 1 business day.")}]
    answer = ("Here is what you need to know.\n\n"
              "Power:\n- The charger delivers 65 W over USB-C.\n- It works from 100 to 240 V at 50/60 Hz.\n"
              "- It weighs 180 g.\n\n"
              "Shipping:\n1. Orders over $50 ship free.\n2. Standard delivery takes 3 to 5 business days.\n"
              "3. Express delivery costs $9.99 and takes 1 business day.\n\n"
              "The charger also charges two laptops at 100 W each at the same time. "
              + " ".join(f"word{i}" for i in range(300)) + " crater.")
    ragmon_span(tracer, question="What does the charger deliver and how is it shipped?", contexts=docs,
                answer=answer, citations=["spec", "ship"], relevant_ids=["spec"],
                ground_truth="65 W over USB-C; free shipping over $50, 3 to 5 business days.")


def openinference(tracer: Tracer) -> None:
    """A LangChain RetrievalQA as OpenInference records it; the answer cites by `[n]` markers."""
    question = "When can I return an item?"
    answer = "You can return an item within 30 days of delivery [1]. Refunds take 2 weeks [2]."
    documents = ("Items can be returned within 30 days of delivery.",
                 "Refunds are issued within 5 business days.")
    retrieved = {KIND: "RETRIEVER", "input.value": question}
    for rank, (doc_id, text, score) in enumerate(zip(("policy-returns", "policy-refunds"), documents,
                                                     (0.83, 0.41), strict=True)):
        retrieved |= {f"retrieval.documents.{rank}.document.id": doc_id,
                      f"retrieval.documents.{rank}.document.content": text,
                      f"retrieval.documents.{rank}.document.score": score}
    prompt = f"Answer from these documents.\n[1] {documents[0]}\n[2] {documents[1]}\nQuestion: {question}"
    with tracer.start_as_current_span("RetrievalQA", attributes={
            KIND: "CHAIN", "input.value": json.dumps({"query": question}),
            "output.value": json.dumps({"result": answer})}):
        with tracer.start_as_current_span("retrieve", attributes=retrieved):
            pass
        with tracer.start_as_current_span("ChatOpenAI", attributes={
                KIND: "LLM", "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": prompt,
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": answer}):
            pass


def genai(tracer: Tracer) -> None:
    """OTel GenAI with its opt-in content on the spans; the answer cites by `[id]` markers."""
    question = "How long is shipping?"
    documents = [{"id": "s1", "score": 0.9, "content": "Shipping takes 5 days."},
                 {"id": "s2", "score": 0.3, "content": "Shipping is free over $50."}]
    asked = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    answered = [{"role": "assistant", "finish_reason": "stop",
                 "parts": [{"type": "text", "content": "Shipping takes 5 days [s1]. It costs $5 [s2]."}]}]
    with tracer.start_as_current_span("POST /ask"):
        with tracer.start_as_current_span("retrieval kb", attributes={
                "gen_ai.operation.name": "retrieval", "gen_ai.retrieval.query.text": question,
                "gen_ai.retrieval.documents": json.dumps(documents)}):
            pass
        with tracer.start_as_current_span("chat gpt-4o", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(asked),
                "gen_ai.output.messages": json.dumps(answered)}):
            pass


def no_documents(tracer: Tracer) -> None:
    ragmon_span(tracer, question="Tell me a fact about the warranty.", answer="The warranty lasts 2 years.")


def nothing_retrieved(tracer: Tracer) -> None:
    """Retrieval returned nothing and the answer claims all the same; the pipeline is declared."""
    ragmon_span(tracer, question="What colour is the sky?", contexts=[], answer="The sky is green.",
                pipeline="Déclaré ✓")


def empty_answer(tracer: Tracer) -> None:
    ragmon_span(tracer, question="What colour is the sky?", contexts=[], answer="",
                ground_truth="insufficient_context")


def blank_question(tracer: Tracer) -> None:
    """A question and a ground truth of spaces are not recorded (the README: read as unknown)."""
    ragmon_span(tracer, question="   ", contexts=[{"id": "a", "text": "The sky is blue."}],
                answer="The sky is blue.", ground_truth="  ")


def on_the_border(tracer: Tracer) -> None:
    """A claim with 2 of its 4 content terms (warranty, lasts) in its document: supported by a judge at a
    threshold of 0.5, not at the default 0.56."""
    ragmon_span(tracer, question="What does the warranty cover?", contexts=[{"id": "kb-1", "text": WARRANTY}],
                answer="The warranty lasts for robots and aliens.", relevant_ids=["kb-1"])


def search_only(tracer: Tracer) -> None:
    ragmon_span(tracer, question="warranty", contexts=[{"id": "a", "text": WARRANTY}], relevant_ids=["a"])


TRACES: dict[str, Build] = {
    "duplicates": duplicates, "cjk": cjk, "odd-text": odd_text, "abstention": abstention,
    "long-answer": long_answer, "openinference": openinference, "genai": genai, "no-documents": no_documents,
    "nothing-retrieved": nothing_retrieved, "empty-answer": empty_answer, "blank-question": blank_question,
    "search-only": search_only, "unlisted": no_documents,
}
PIPELINES = {name: "Déclaré ✓" if name == "nothing-retrieved" else name for name in TRACES}
"""Each trace's pipeline: its service, or the one it declares."""
LISTED = [pipeline for pipeline in PIPELINES.values() if pipeline != "unlisted"]
"""`--pipelines`: every pipeline but one, whose figures are exported as `other`."""
LABELS = {name: pipeline if pipeline in LISTED else "other" for name, pipeline in PIPELINES.items()}
"""The pipeline label each trace's figures are exported under."""


def spans_of(service: str, build: Build) -> list[ReadableSpan]:
    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    build(provider.get_tracer("agreement"))
    provider.shutdown()
    return list(memory.get_finished_spans())


# --- one run: serve, capture, replay -------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    samples: Samples
    """The sidecar's /metrics once every trace was captured."""
    trace_ids: dict[str, str]
    """Trace name -> its trace id, as hex."""
    records: dict[str, dict[str, Any]]
    """The captured lines, by id."""
    results: dict[str, dict[str, Any]]
    """`ragmon replay FILE --json`'s results, by id."""
    sent: dict[str, list[ReadableSpan]]
    capture: Path
    """The file the sidecar captured to."""


def replayed(dataset: Path, out: Path) -> dict[str, dict[str, Any]]:
    assert main(["replay", str(dataset), "--json", str(out), "--quiet"]) == 0
    return {result["id"]: result for result in json.loads(out.read_text(encoding="utf-8"))["results"]}


def captured(count: int) -> Callable[[Samples], bool]:
    """Every trace captured and scored: a capture is written before its scores are exported, so a page read
    at the last capture could lack the last examples' figures (seen on a loaded machine, 11 of 13 scored)."""
    return lambda samples: (total(samples, "ragmon_captured_total", outcome="written") == count
                            and total(samples, "ragmon_traces_total", outcome="scored") == count)


def serve_and_capture(folder: Path, traces: dict[str, Build], *flags: str) -> Run:
    """`ragmon serve --capture` run with `flags` and sent `traces`, its capture replayed at the defaults."""
    capture = folder / "captured.jsonl"
    sent = {name: spans_of(name, build) for name, build in traces.items()}
    flags = ("--capture", str(capture), "--capture-below", "all", "--quiet", "50ms", *flags)
    with serve_cli(list(flags)) as serve:
        asyncio.run(export(serve.ready["http_port"], [span for spans in sent.values() for span in spans]))
        samples = asyncio.run(wait_metrics(serve.ready["metrics_port"], captured(len(traces))))
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0, logs
    records = {r["id"]: r for r in map(json.loads, capture.read_bytes().split(b"\n")[:-1])}
    return Run(samples, {name: format(spans[0].context.trace_id, "032x") for name, spans in sent.items()},
               records, replayed(capture, folder / "replayed.json"), sent, capture)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return serve_and_capture(tmp_path_factory.mktemp("agreement"), TRACES, "--pipelines", ",".join(LISTED))


TUNED = {"duplicates": duplicates, "on-the-border": on_the_border}


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """A sidecar at other settings than replay's defaults: `--k 1 --lexical-threshold 0.5`."""
    return serve_and_capture(tmp_path_factory.mktemp("tuned"), TUNED, "--k", "1",
                             "--lexical-threshold", "0.5")


def sidecar_figures(samples: Samples, pipeline: str) -> dict[str, float | None]:
    """Each pipeline scored one example, so its histogram's sum is that example's figure; none when the
    metric was not observed."""
    figures: dict[str, float | None] = {}
    for metric in METRIC_NAMES:
        key = frozenset({"pipeline": pipeline, "judge": "lexical", "metric": metric}.items())
        observed = samples.get(("ragmon_example_score_count", key), 0)
        figures[metric] = samples[("ragmon_example_score_sum", key)] if observed else None
    return figures


def unsupported(result: dict[str, Any]) -> list[str]:
    return [claim["text"] for claim in result["claims"] if not claim["supported"]]


# --- tests ---------------------------------------------------------------------------------------------

def test_every_trace_is_captured_once_under_its_trace_id_and_pipeline(run: Run) -> None:
    assert total(run.samples, "ragmon_traces_total", outcome="scored") == len(TRACES)
    assert sorted(run.records) == sorted(run.results) == sorted(run.trace_ids.values())
    assert {name: run.records[trace_id]["pipeline"] for name, trace_id in run.trace_ids.items()} == PIPELINES


def test_each_captured_line_names_the_pipeline_label_its_figures_were_exported_under(run: Run) -> None:
    """A pipeline left out of `--pipelines` (or past `--max-pipelines`, or a name too long for a label) is
    exported as another label than its name: the line says which, so the examples behind a dashboard's
    `other` can be found in the file."""
    assert {name: run.records[trace_id]["metadata"]["pipeline_label"]
            for name, trace_id in run.trace_ids.items()} == LABELS


def test_replay_of_the_capture_gives_each_example_the_figures_the_sidecar_exported(run: Run) -> None:
    for name, trace_id in run.trace_ids.items():
        record, result = run.records[trace_id], run.results[trace_id]
        assert result["metrics"] == sidecar_figures(run.samples, LABELS[name]), name
        assert unsupported(result) == record["metadata"]["unsupported"], name
        assert result["metrics"]["groundedness"] == record["metadata"]["groundedness"], name
        claims = {verdict: total(run.samples, "ragmon_claims_total", pipeline=LABELS[name], verdict=verdict)
                  for verdict in ("supported", "unsupported")}
        assert claims == {"supported": len(result["claims"]) - len(unsupported(result)),
                          "unsupported": len(unsupported(result))}, name


def test_the_figures_both_agree_on_are_the_ones_worked_out_by_hand(run: Run) -> None:
    """Agreement on undefined alone would prove nothing: these are worked out from the traces above."""
    metrics = {name: run.results[trace_id]["metrics"] for name, trace_id in run.trace_ids.items()}
    # Ranks kb-1, kb-1, kb-empty, kb-3 (k=5); relevant kb-3 and kb-7: one found at rank 4 of the 5 slots.
    # DCG 1/log2(5); ideal 1 + 1/log2(3). Claim 1 supported by kb-1, claim 2 by nothing; of the cited
    # kb-1 and kb-404 (never retrieved) only kb-1 supports a claim.
    assert {m: metrics["duplicates"][m] for m in ("hit_rate", "precision", "recall", "mrr", "groundedness",
                                                  "citation_accuracy")} == {
        "hit_rate": 1.0, "precision": 0.2, "recall": 0.5, "mrr": 0.25, "groundedness": 0.5,
        "citation_accuracy": 0.5}
    assert metrics["duplicates"]["ndcg"] == pytest.approx((1 / math.log2(5)) / (1 + 1 / math.log2(3)))
    # Japanese and German claims found in their documents; the moon's damage in none.
    assert metrics["cjk"]["groundedness"] == pytest.approx(2 / 3)
    assert (metrics["abstention"]["abstention"], metrics["abstention"]["groundedness"]) == (1.0, None)
    # [1] cites policy-returns, which supports claim 1; [2] cites policy-refunds, which says 5 days.
    assert (metrics["openinference"]["groundedness"], metrics["openinference"]["citation_accuracy"]) == (
        0.5, 0.5)
    assert metrics["nothing-retrieved"]["groundedness"] == 0.0          # no documents: a real zero
    assert metrics["no-documents"]["groundedness"] is None              # documents unknown


def test_the_captured_record_holds_what_the_app_sent(run: Run) -> None:
    duplicates, odd = (run.records[run.trace_ids[name]] for name in ("duplicates", "odd-text"))
    assert [(c["id"], c["text"], c["score"]) for c in duplicates["contexts"]] == [
        ("kb-1", WARRANTY, 0.9), ("kb-1", WARRANTY, 0.9), ("kb-empty", "", 0.5),
        ("kb-3", "Returns are accepted within 30 days.", 0.1)]
    assert (duplicates["citations"], duplicates["relevant_ids"]) == (["kb-1", "kb-404"], ["kb-3", "kb-7"])
    # 12 is read as "12"; NaN and infinite scores have no JSON spelling and say nothing of rank: null.
    assert [c["score"] for c in odd["contexts"]] == [None, None]
    assert odd["contexts"][0]["id"] == "12" and odd["contexts"][1]["id"].startswith("doc-")   # its hash
    assert odd["contexts"][0]["text"] == "Die Garantie\u2028gilt 2 Jahre.\x00\x1b[31m"
    assert odd["answer"] == "Die Garantie gilt 2 Jahre.\x85Versand dauert 5 Tage. Der Mond ist aus Käse."
    blank = run.records[run.trace_ids["blank-question"]]
    assert blank["question"] == "" and "ground_truth" not in blank
    openinference = run.records[run.trace_ids["openinference"]]
    assert openinference["citations"] == ["policy-returns", "policy-refunds"]


def test_the_same_spans_as_otlp_json_lines_replay_to_the_sidecars_figures(run: Run, tmp_path: Path) -> None:
    """The Collector's file exporter's lines, one request per trace, go through the same assembly and
    extraction as live traffic."""
    lines = tmp_path / "traces.jsonl"
    lines.write_text("".join(json.dumps(otlp_json_doc(encode_spans(spans))) + "\n"
                             for spans in run.sent.values()), encoding="utf-8")
    results = replayed(lines, tmp_path / "replayed.json")
    for name, trace_id in run.trace_ids.items():
        assert results[trace_id]["metrics"] == sidecar_figures(run.samples, LABELS[name]), name
        assert results[trace_id]["claims"] == run.results[trace_id]["claims"], name


def test_each_captured_line_records_the_sidecars_k_and_threshold(run: Run, tuned: Run) -> None:
    """Replayed at another `--k` or `--lexical-threshold`, the figures differ: the lines say which."""
    for records, k, threshold in ((run.records, 5, 0.56), (tuned.records, 1, 0.5)):
        assert [(r["metadata"]["k"], r["metadata"]["judge_settings"]) for r in records.values()] == [
            (k, {"threshold": threshold})] * len(records)


def test_a_capture_replayed_at_other_settings_says_which_flags_give_the_sidecars_figures(
        tuned: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Replayed with its defaults, a capture from a sidecar at `--k 1 --lexical-threshold 0.5` had other
    figures than the dashboard's (hit_rate 1.0 for its 0.0) without a word; the flags it names give them."""
    capture = tuned.capture
    assert main(["replay", str(capture), "--gate", "groundedness=0", "--json", str(tmp_path / "r.json")]) == 0
    # Its lines as the sidecar wrote them, unreviewed: a gate on them is on text nobody read, said first.
    review = (f'2 examples of {capture} still need review ("needs_review": true: lines 1, 2): set it to '
              "false once reviewed, or delete the line")
    said = [
        review,
        "2 examples were captured by a sidecar at --k 1, this run is at --k 5: their retrieval figures "
        "(hit_rate, precision, recall, mrr, ndcg) are not the sidecar's (pass --k 1 to score as it did)",
        "2 examples were captured by a sidecar at --lexical-threshold 0.5, this run is at "
        "--lexical-threshold 0.56: their claim verdicts and the figures made of them (groundedness, "
        "hallucination_rate, ...) are not the sidecar's (pass --lexical-threshold 0.5 to score as it did)"]
    assert capsys.readouterr().err.splitlines() == [f"ragmon replay: warning: {why}" for why in said]
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert (report["run_warnings"], report["warnings"]) == (said, [])
    # The defaults' figures, not the sidecar's: kb-3 found at rank 4 of 5 slots; 2 of 4 terms short of 0.56.
    by_name = {name: {r["id"]: r["metrics"] for r in report["results"]}[trace_id]
               for name, trace_id in tuned.trace_ids.items()}
    assert (by_name["duplicates"]["hit_rate"], by_name["on-the-border"]["groundedness"]) == (1.0, 0.0)
    assert sidecar_figures(tuned.samples, "duplicates")["hit_rate"] == 0.0
    assert sidecar_figures(tuned.samples, "on-the-border")["groundedness"] == 1.0

    assert main(["replay", str(capture), "--gate", "groundedness=0", "--json", str(tmp_path / "r.json"),
                 "--k", "1", "--lexical-threshold", "0.5"]) == 0
    assert capsys.readouterr().err == f"ragmon replay: warning: {review}\n"
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    results = {r["id"]: r["metrics"] for r in report["results"]}
    assert report["run_warnings"] == [review]
    for name, trace_id in tuned.trace_ids.items():
        assert results[trace_id] == sidecar_figures(tuned.samples, name), name
    # By hand: kb-1 alone in the top 1 is no relevant document (kb-3, kb-7); 2 of 4 terms hold at 0.5.
    duplicates = results[tuned.trace_ids["duplicates"]]
    assert {m: duplicates[m] for m in ("hit_rate", "precision", "recall", "mrr", "ndcg")} == dict.fromkeys(
        ("hit_rate", "precision", "recall", "mrr", "ndcg"), 0.0)
    assert results[tuned.trace_ids["on-the-border"]]["groundedness"] == 1.0
