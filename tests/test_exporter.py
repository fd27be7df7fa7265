"""The Prometheus contract of DESIGN §7, read back through prometheus_client's own parsers."""

from __future__ import annotations

import hashlib
import logging
import time

import prometheus_client
import pytest
from manual_clock import ManualClock
from prometheus_client.openmetrics.exposition import generate_latest as generate_openmetrics
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics
from prometheus_client.parser import text_string_to_metric_families

import ragmon
from ragmon.exporter import Exporter
from ragmon.model import METRIC_NAMES, Claim, ClaimVerdict, Example, ExampleResult
from ragmon.rules import SCORING_RULES
from ragmon.scrape import Samples, parse, total

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"

# DESIGN §7, copied by hand: exposed sample name -> (family type, label names).
CONTRACT = {
    "ragmon_spans_received_total": ("counter", {"transport"}),
    "ragmon_spans_rejected_total": ("counter", {"reason"}),
    "ragmon_traces_total": ("counter", {"pipeline", "outcome"}),
    "ragmon_claims_total": ("counter", {"pipeline", "judge", "verdict"}),
    "ragmon_examples_scored_total": ("counter", {"pipeline", "judge"}),
    "ragmon_example_score_bucket": ("histogram", {"pipeline", "judge", "metric", "le"}),
    "ragmon_groundedness_ratio": ("gauge", {"pipeline", "judge"}),
    "ragmon_hallucination_ratio": ("gauge", {"pipeline", "judge"}),
    "ragmon_window_examples": ("gauge", {"pipeline", "judge"}),
    "ragmon_judge_requests_total": ("counter", {"judge", "outcome"}),
    "ragmon_judge_duration_seconds_bucket": ("histogram", {"judge", "le"}),
    "ragmon_judge_cost_usd_total": ("counter", {"judge"}),
    "ragmon_traces_in_flight": ("gauge", set()),
    "ragmon_score_queue_depth": ("gauge", {"judge"}),  # by judge since a Claude queue hid in the sum
    "ragmon_score_lag_seconds_bucket": ("histogram", {"le"}),
    "ragmon_build_info": ("gauge", {"version", "scoring_rules"}),
}


def result(supported: int, unsupported: int) -> ExampleResult:
    """A scored example with `supported` + `unsupported` claims and only the generation metrics defined."""
    verdicts = tuple(ClaimVerdict(Claim(f"claim {i}", 0, 7), i < supported)
                     for i in range(supported + unsupported))
    grounded = supported / (supported + unsupported)
    metrics: dict[str, float | None] = dict.fromkeys(METRIC_NAMES)
    metrics.update(groundedness=grounded, hallucination_rate=1 - grounded)
    return ExampleResult(Example("e1", "q?"), "lexical", metrics, verdicts)


def samples(exporter: Exporter) -> Samples:
    return parse(prometheus_client.generate_latest(exporter.registry).decode())


def labels(**kv: str) -> frozenset[tuple[str, str]]:
    return frozenset(kv.items())


def test_every_design_metric_is_exposed_with_its_type_and_labels() -> None:
    exporter = Exporter(window=60)
    pipeline = exporter.pipeline_label("shop")
    exporter.spans_received("http", 3)
    exporter.spans_rejected("duplicate", 1)
    exporter.trace_outcome(pipeline, "scored")
    exporter.example_scored(pipeline, "lexical", result(2, 1), TRACE_ID)
    exporter.judge_request("lexical", "ok", 0.002, 0.0)
    exporter.score_lag(0.05)
    text = prometheus_client.generate_latest(exporter.registry).decode()
    found = {s.name: (family.type, set(s.labels)) for family in text_string_to_metric_families(text)
             for s in family.samples}
    for name, expected in CONTRACT.items():
        assert found.get(name) == expected, name
    assert not [name for name in found if name.endswith("_created")]
    build = labels(version=ragmon.__version__, scoring_rules=str(SCORING_RULES))
    assert samples(exporter)[("ragmon_build_info", build)] == 1


def test_the_process_memory_start_time_and_files_are_exposed() -> None:
    # No series showed the sidecar's memory against its container's limit, or a restart loop.
    found = samples(Exporter(window=60))
    with open("/proc/self/status", encoding="ascii") as status:
        rss_kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    rss = found[("process_resident_memory_bytes", labels())]
    assert 0.5 * rss_kib * 1024 < rss < 2 * rss_kib * 1024
    assert found[("process_start_time_seconds", labels())] <= time.time()
    assert found[("process_open_fds", labels())] >= 3 and found[("process_max_fds", labels())] > 0
    assert any(name == "python_info" for name, _ in found)


def _transport_series(found: Samples) -> set[tuple[str, ...]]:
    """(metric, [signal,] transport) of every series labelled by transport."""
    return {(name, *(value for key, value in sorted(series) if key in ("signal", "transport")))
            for name, series in found if any(key == "transport" for key, _ in series)}


def test_a_receiver_turned_off_has_no_series_and_one_listening_has_them_at_zero() -> None:
    # --grpc-listen off exported ragmon_spans_received_total{transport="grpc"} 0 and four misdirected grpc
    # series: a dashboard showed a gRPC receiver that does not exist.
    signals = ("logs", "metrics", "other", "profiles")
    http_only = samples(Exporter(window=60, transports=("http",)))
    assert _transport_series(http_only) == {
        ("ragmon_spans_received_total", "http"),
        *(("ragmon_misdirected_requests_total", signal, "http") for signal in signals)}
    assert http_only[("ragmon_spans_received_total", labels(transport="http"))] == 0
    # --http-listen off: the metrics port still counts an export sent to it, as http/other.
    assert _transport_series(samples(Exporter(window=60, transports=("grpc",)))) == {
        ("ragmon_spans_received_total", "grpc"), ("ragmon_misdirected_requests_total", "other", "http"),
        *(("ragmon_misdirected_requests_total", signal, "grpc") for signal in signals)}


def test_counters_histograms_and_zero_series_of_a_scored_example() -> None:
    exporter = Exporter(window=60)
    pipeline = exporter.pipeline_label("shop")
    before = samples(exporter)
    # Pre-created children exist at 0 before anything happened, so rate() works from the first scrape.
    shop = {"pipeline": "shop", "judge": "lexical"}
    assert before[("ragmon_traces_total", labels(pipeline="shop", outcome="error"))] == 0
    assert before[("ragmon_claims_total", labels(**shop, verdict="unsupported"))] == 0
    assert before[("ragmon_spans_received_total", labels(transport="grpc"))] == 0
    assert before[("ragmon_judge_duration_seconds_count", labels(judge="lexical"))] == 0
    exporter.example_scored(pipeline, "lexical", result(2, 1), TRACE_ID)
    after = samples(exporter)
    assert after[("ragmon_claims_total", labels(**shop, verdict="supported"))] == 2
    assert after[("ragmon_claims_total", labels(**shop, verdict="unsupported"))] == 1
    assert after[("ragmon_examples_scored_total", labels(**shop))] == 1
    g = {"pipeline": "shop", "judge": "lexical", "metric": "groundedness"}
    # groundedness 2/3 lies in (0.6, 0.7]: the 0.6 bucket stays 0, the 0.7 bucket counts it.
    assert after[("ragmon_example_score_bucket", labels(**g, le="0.6"))] == 0
    assert after[("ragmon_example_score_bucket", labels(**g, le="0.7"))] == 1
    assert after[("ragmon_example_score_sum", labels(**g))] == 2 / 3
    # Undefined metrics are not observed at all (undefined is not zero).
    assert ("ragmon_example_score_count", labels(**shop, metric="recall")) not in after


def page_from(exporter: Exporter, taken: list[object]) -> Samples:
    """What the page's thread builds (ragmon.service) from what the loop had `taken` as the build began."""
    with exporter.readings.frozen(taken):
        return samples(exporter)


def scored_figures(page: Samples) -> tuple[float, float, float]:
    """(traces counted `scored`, examples scored, claims judged) of the pipeline `shop`."""
    return (total(page, "ragmon_traces_total", pipeline="shop", outcome="scored"),
            total(page, "ragmon_examples_scored_total", pipeline="shop"),
            total(page, "ragmon_claims_total", pipeline="shop"))


def test_a_page_counts_no_example_scored_before_its_trace_is_counted_scored() -> None:
    # A page's build begins: the loop takes its readings. Before the page's thread reaches the counters,
    # the loop scores one example (2 claims supported, 1 not) and counts its trace `scored`. A page that
    # read the examples live showed 1 example scored of 0 traces scored: a ratio of them over 1.
    exporter = Exporter(window=60)
    shop = exporter.pipeline_label("shop")
    taken = exporter.readings.take()
    exporter.example_scored(shop, "lexical", result(2, 1), TRACE_ID)
    exporter.trace_outcome(shop, "scored")
    assert scored_figures(page_from(exporter, taken)) == (0, 0, 0)
    # The next page has the trace, its example and its 3 claims, together.
    assert scored_figures(page_from(exporter, exporter.readings.take())) == (1, 1, 3)


def test_a_page_counts_no_judge_call_before_the_example_it_scored() -> None:
    # A second judge's call comes back `ok` and its example is scored in one step of the loop, after a
    # page's build began: read later, the calls had shown 1 call `ok` beside 0 examples scored by it.
    exporter = Exporter(window=60, judges=("lexical", "claude"))
    shop = exporter.pipeline_label("shop")
    taken = exporter.readings.take()
    exporter.judge_request("claude", "ok", 1.5, 0.001)
    exporter.example_scored(shop, "claude", result(1, 0), TRACE_ID)

    def calls_and_examples(page: Samples) -> tuple[float, float]:
        return (total(page, "ragmon_judge_requests_total", judge="claude", outcome="ok"),
                total(page, "ragmon_examples_scored_total", judge="claude"))

    assert calls_and_examples(page_from(exporter, taken)) == (0, 0)
    assert calls_and_examples(page_from(exporter, exporter.readings.take())) == (1, 1)


def test_a_page_counts_no_spans_or_cost_ahead_of_the_traces_and_calls_they_belong_to() -> None:
    # After a page's build began, the loop takes a request of 3 spans, one of them late for a trace it had
    # decided, counts that trace `scored`, and a Claude call comes back `ok` at $0.25. Read later, on the
    # page's thread, the page had shown the 3 spans and the $0.25 beside no trace and no call.
    exporter = Exporter(window=60, judges=("lexical", "claude"))
    shop = exporter.pipeline_label("shop")
    taken = exporter.readings.take()
    exporter.spans_received("http", 3)
    exporter.spans_rejected("late", 1)
    exporter.trace_outcome(shop, "scored")
    exporter.judge_request("claude", "ok", 1.5, 0.25)

    def figures(page: Samples) -> tuple[float, ...]:
        return (total(page, "ragmon_spans_received_total", transport="http"),
                total(page, "ragmon_spans_rejected_total", reason="late"),
                total(page, "ragmon_traces_total", pipeline="shop"),
                total(page, "ragmon_judge_requests_total", judge="claude"),
                total(page, "ragmon_judge_cost_usd_total", judge="claude"))

    assert figures(page_from(exporter, taken)) == (0, 0, 0, 0, 0)
    assert figures(page_from(exporter, exporter.readings.take())) == (3, 1, 1, 1, 0.25)


def test_a_judge_call_refused_or_failed_is_counted_and_costs_nothing() -> None:
    # The budget's refusal (`throttled`) and an error are reported without a price: they add a call of their
    # outcome, no time, and no spend to the cost a dashboard sums against the budget.
    exporter = Exporter(window=60, judges=("lexical", "claude"))
    exporter.judge_request("claude", "ok", 1.5, 0.25)
    exporter.judge_request("claude", "throttled")
    exporter.judge_request("claude", "error")
    page = samples(exporter)
    assert total(page, "ragmon_judge_requests_total", judge="claude", outcome="throttled") == 1
    assert total(page, "ragmon_judge_requests_total", judge="claude", outcome="error") == 1
    assert total(page, "ragmon_judge_duration_seconds_count", judge="claude") == 1
    assert total(page, "ragmon_judge_cost_usd_total", judge="claude") == 0.25


def test_score_buckets_separate_a_perfect_score_and_judge_buckets_reach_below_a_millisecond() -> None:
    """A perfect example must not share a bucket with 0.9 (interpolated over (0.9, 1.0] it read 0.95),
    and a lexical judge's sub-millisecond timings must not all fall in the first bucket."""
    exporter = Exporter(window=60)
    exporter.example_scored(exporter.pipeline_label("shop"), "lexical", result(3, 0), TRACE_ID)  # 3/3 = 1.0
    exporter.judge_request("lexical", "ok", 0.0003)  # 0.3 ms: in (0.25 ms, 0.5 ms]
    found = samples(exporter)
    g = {"pipeline": "shop", "judge": "lexical", "metric": "groundedness"}
    score_bounds = sorted(float(dict(k)["le"]) for name, k in found
                          if name == "ragmon_example_score_bucket" and dict(k)["metric"] == "groundedness")
    # The DESIGN §7 steps 0, 0.1, ..., 1.0, plus 0.99, plus +Inf.
    assert score_bounds == [i / 10 for i in range(10)] + [0.99, 1.0, float("inf")]
    assert found[("ragmon_example_score_bucket", labels(**g, le="0.99"))] == 0
    assert found[("ragmon_example_score_bucket", labels(**g, le="1.0"))] == 1
    lexical = {"judge": "lexical"}
    assert found[("ragmon_judge_duration_seconds_bucket", labels(**lexical, le="0.0001"))] == 0
    assert found[("ragmon_judge_duration_seconds_bucket", labels(**lexical, le="0.00025"))] == 0
    assert found[("ragmon_judge_duration_seconds_bucket", labels(**lexical, le="0.0005"))] == 1


def test_histogram_exemplars_carry_the_trace_id_in_openmetrics() -> None:
    exporter = Exporter(window=60)
    exporter.example_scored(exporter.pipeline_label("shop"), "lexical", result(1, 1), TRACE_ID)
    text = generate_openmetrics(exporter.registry).decode()
    exemplars = [(s.labels, s.exemplar) for family in parse_openmetrics(text)
                 if family.name == "ragmon_example_score" for s in family.samples if s.exemplar is not None]
    # groundedness 0.5 and hallucination_rate 0.5 each land first in the le="0.5" bucket.
    assert {(lbl["metric"], lbl["le"]) for lbl, _ in exemplars} == {("groundedness", "0.5"),
                                                                    ("hallucination_rate", "0.5")}
    assert all(ex.labels == {"trace_id": TRACE_ID} and ex.value == 0.5 for _, ex in exemplars)
    assert "_created" not in text


def test_window_gauges_appear_move_and_disappear_with_the_clock() -> None:
    clock = ManualClock(1000.0)
    exporter = Exporter(window=60, clock=clock)  # 60 buckets of 1 s
    shop = {"pipeline": "shop", "judge": "lexical"}
    assert ("ragmon_groundedness_ratio", labels(**shop)) not in samples(exporter)

    exporter.example_scored("shop", "lexical", result(1, 0), TRACE_ID)      # groundedness 1.0 at t=1000
    exporter.example_scored("shop", "lexical", result(1, 1), TRACE_ID)      # 0.5 at t=1000
    now = samples(exporter)
    assert now[("ragmon_groundedness_ratio", labels(**shop))] == 0.75       # (1 + 0.5) / 2
    assert now[("ragmon_hallucination_ratio", labels(**shop))] == 0.25
    assert now[("ragmon_window_examples", labels(**shop))] == 2

    clock.now = 1030.0
    exporter.example_scored("shop", "lexical", result(0, 2), TRACE_ID)      # 0.0 at t=1030
    assert samples(exporter)[("ragmon_groundedness_ratio", labels(**shop))] == 0.5   # 1.5 / 3

    # Bucket 1000 is in the window while the clock is in bucket 1059 (the 60th bucket), out at 1060.
    clock.now = 1059.9
    assert samples(exporter)[("ragmon_window_examples", labels(**shop))] == 3
    clock.now = 1060.0
    now = samples(exporter)
    assert now[("ragmon_groundedness_ratio", labels(**shop))] == 0.0         # only the t=1030 example
    assert now[("ragmon_hallucination_ratio", labels(**shop))] == 1.0
    assert now[("ragmon_window_examples", labels(**shop))] == 1

    clock.now = 1090.0                                                      # bucket 1030 left too
    gone = samples(exporter)
    for name in ("ragmon_groundedness_ratio", "ragmon_hallucination_ratio", "ragmon_window_examples"):
        assert (name, labels(**shop)) not in gone
    # The counters keep everything: the window only shapes the single-pod gauges.
    assert gone[("ragmon_examples_scored_total", labels(**shop))] == 3


@pytest.mark.parametrize(("supported", "unsupported", "answers", "grounded", "hallucinated"), [
    # Summed as floats, three answers at 0.7 made 2.0999999999999996 / 3 = 0.6999999999999998 and a
    # hallucination ratio of 0.3000000000000001: an alert at `< 0.7` or `> 0.3` fired on answers that
    # `replay --gate groundedness=0.7` holds.
    (7, 3, 3, 0.7, 0.3),
    # Ten answers at 0.1 summed to 0.9999999999999999: a mean of 0.09999999999999999.
    (1, 9, 10, 0.1, 0.9),
])
def test_window_means_are_the_exact_mean_of_the_answers(supported: int, unsupported: int, answers: int,
                                                        grounded: float, hallucinated: float) -> None:
    exporter = Exporter(window=60, clock=ManualClock(1000.0))
    for _ in range(answers):
        exporter.example_scored("shop", "lexical", result(supported, unsupported), TRACE_ID)
    page = prometheus_client.generate_latest(exporter.registry).decode()
    assert f'ragmon_groundedness_ratio{{judge="lexical",pipeline="shop"}} {grounded}\n' in page
    assert f'ragmon_hallucination_ratio{{judge="lexical",pipeline="shop"}} {hallucinated}\n' in page


def test_window_is_kept_per_pipeline_and_judge() -> None:
    clock = ManualClock(1000.0)
    exporter = Exporter(window=10, clock=clock, judges=("lexical", "claude"))
    exporter.example_scored("a", "lexical", result(1, 0), TRACE_ID)
    exporter.example_scored("a", "claude", result(0, 1), TRACE_ID)
    exporter.example_scored("b", "lexical", result(1, 1), TRACE_ID)
    now = samples(exporter)
    assert now[("ragmon_groundedness_ratio", labels(pipeline="a", judge="lexical"))] == 1.0
    assert now[("ragmon_groundedness_ratio", labels(pipeline="a", judge="claude"))] == 0.0
    assert now[("ragmon_groundedness_ratio", labels(pipeline="b", judge="lexical"))] == 0.5


def test_pipeline_label_is_capped_and_the_rest_is_other() -> None:
    exporter = Exporter(window=60, max_pipelines=2)
    assert [exporter.pipeline_label(name) for name in ("a", "b", "c", "a", None, "d", "b")] == \
        ["a", "b", "other", "a", "other", "other", "b"]
    for name in ("a", "b", "c", "d"):
        exporter.trace_outcome(exporter.pipeline_label(name), "not_rag")
    values = samples(exporter)
    assert {dict(ls)["pipeline"] for (n, ls) in values if n == "ragmon_traces_total"} == {"a", "b", "other"}
    assert values[("ragmon_traces_total", labels(pipeline="other", outcome="not_rag"))] == 2


def test_other_gets_zero_series_when_the_cap_is_first_reached() -> None:
    """Like any pipeline, `other` must exist at 0 before its first increment, or rate()/increase() miss
    that increment (a series' first sample has nothing to increase from)."""
    exporter = Exporter(window=60, max_pipelines=1)
    assert exporter.pipeline_label("a") == "a"
    assert ("ragmon_traces_total", labels(pipeline="other", outcome="scored")) not in samples(exporter)
    assert exporter.pipeline_label("b") == "other"          # the cap of 1 is taken by "a"
    values = samples(exporter)
    assert values[("ragmon_traces_total", labels(pipeline="other", outcome="scored"))] == 0
    other = {"pipeline": "other", "judge": "lexical"}
    assert values[("ragmon_claims_total", labels(**other, verdict="unsupported"))] == 0
    assert values[("ragmon_examples_scored_total", labels(**other))] == 0


def test_the_cap_overflow_is_counted_and_said_once_not_silently_folded_into_other(
        caplog: pytest.LogCaptureFixture) -> None:
    """Past --max-pipelines a new pipeline's traces are counted under `other`, where nothing told them from
    the non-RAG services that belong there, and nothing was logged: a team's new pipeline just never
    appeared. Each refused claim now counts, and the first is logged with where its name came from."""
    caplog.set_level(logging.WARNING, logger="ragmon.exporter")
    exporter = Exporter(window=60, max_pipelines=1)
    origin = {"trace_id": TRACE_ID, "source": "service.name"}
    calls = [("a", True), ("b", True), ("c", True), ("b", True), ("d", False), ("a", True), (None, True)]
    assert [exporter.pipeline_label(name, claim=claim, origin=lambda: origin) for name, claim in calls] == \
        ["a", "other", "other", "other", "other", "a", "other"]
    # Refused by the cap: b, c, b again, and the nameless trace (4); "d" is no RAG trace, "a" has its label.
    assert samples(exporter)[("ragmon_pipeline_overflow_total", labels())] == 4
    [line] = caplog.records
    assert line.getMessage() == (
        "--max-pipelines 1 reached: this pipeline and every new one after it are counted under "
        "pipeline='other' (ragmon_pipeline_overflow_total counts their traces); list the pipelines to keep "
        "apart with --pipelines, or raise --max-pipelines")
    assert (line.name_start, line.max_pipelines, line.trace_id, line.source) == ("b", 1, TRACE_ID,
                                                                                 "service.name")


def test_names_left_out_of_an_allow_list_are_no_overflow(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="ragmon.exporter")
    exporter = Exporter(window=60, pipelines=("checkout-rag",))
    assert [exporter.pipeline_label(name) for name in ("svc-1", "checkout-rag", "svc-2")] == \
        ["other", "checkout-rag", "other"]
    assert samples(exporter)[("ragmon_pipeline_overflow_total", labels())] == 0
    assert caplog.records == []


def test_a_service_named_other_or_unknown_is_not_counted_with_the_overflow_or_the_nameless() -> None:
    """A service named `other` took a slot and shared its label with every pipeline past the cap, and one
    named `unknown` with every trace that names none: as a name that looks like a shortened label, each
    is shortened, to its start and its own hash, and the reserved labels keep their meaning."""
    exporter = Exporter(window=60, max_pipelines=3)
    named_other, named_unknown = "other~" + sha12(b"other"), "unknown~" + sha12(b"unknown")
    names = ("other", "unknown", None, "shop", "other")
    assert [exporter.pipeline_label(name) for name in names] == [named_other, named_unknown, "unknown",
                                                                  "other", named_other]
    for name in names:
        exporter.trace_outcome(exporter.pipeline_label(name), "scored")
    found = samples(exporter)
    scored = {label: found[("ragmon_traces_total", labels(pipeline=label, outcome="scored"))]
              for label in (named_other, named_unknown, "unknown", "other")}
    assert scored == {named_other: 2, named_unknown: 1, "unknown": 1, "other": 1}    # "other" is shop only


def test_missing_pipeline_is_labelled_unknown() -> None:
    exporter = Exporter(window=60)
    assert exporter.pipeline_label(None) == "unknown"
    assert exporter.pipeline_label("") == "unknown"


def test_listed_pipelines_keep_their_label_whatever_arrives_first() -> None:
    exporter = Exporter(window=60, pipelines=("checkout-rag", "support-rag"))
    before = samples(exporter)
    # Before any trace: the 2 listed names and `other` exist at 0, and no other pipeline value does.
    expected = {"checkout-rag", "support-rag", "other"}
    assert {dict(ls)["pipeline"] for (n, ls) in before if n == "ragmon_traces_total"} == expected
    for pipeline in expected:
        for outcome in ("scored", "not_sampled", "not_rag", "evicted", "error"):
            assert before[("ragmon_traces_total", labels(pipeline=pipeline, outcome=outcome))] == 0
        assert before[("ragmon_examples_scored_total", labels(pipeline=pipeline, judge="lexical"))] == 0
        for verdict in ("supported", "unsupported"):
            assert before[("ragmon_claims_total", labels(pipeline=pipeline, judge="lexical",
                                                         verdict=verdict))] == 0
    # 25 unlisted names first: more than the default cap of 20, which would have left checkout-rag,
    # arriving 26th, under `other` without the list.
    assert [exporter.pipeline_label(f"svc-{i}") for i in range(25)] == ["other"] * 25
    assert exporter.pipeline_label("checkout-rag") == "checkout-rag"
    assert exporter.pipeline_label("support-rag", claim=False) == "support-rag"
    assert exporter.pipeline_label(None) == "other"          # `unknown` is not listed: no label of its own
    for name in ("svc-3", "checkout-rag", "svc-24"):
        exporter.trace_outcome(exporter.pipeline_label(name), "scored")
    after = samples(exporter)
    assert {dict(ls)["pipeline"] for (n, ls) in after if n == "ragmon_traces_total"} == expected
    assert after[("ragmon_traces_total", labels(pipeline="other", outcome="scored"))] == 2    # svc-3, svc-24
    assert after[("ragmon_traces_total", labels(pipeline="checkout-rag", outcome="scored"))] == 1


def test_listed_pipelines_have_score_histograms_at_zero_so_their_first_score_counts_in_rates() -> None:
    """rate() and increase() never count a series' first sample: a histogram series born holding a
    pod's first score would leave that score out of every rule. Listed, a pipeline's series of the six
    metrics live traffic has exist at 0 before any trace (count, sum and every bucket), so the first
    score reads as an increase of 1. Metrics that need labels (recall, answer_correctness) are not
    pre-created: live traffic never has them."""
    live = ("groundedness", "hallucination_rate", "citation_accuracy", "citation_coverage",
            "context_utilisation", "answer_relevance")
    exporter = Exporter(window=60, pipelines=("checkout-rag",), judges=("lexical", "claude"))
    before = samples(exporter)
    for pipeline in ("checkout-rag", "other"):
        for judge in ("lexical", "claude"):
            for metric in live:
                series = {"pipeline": pipeline, "judge": judge, "metric": metric}
                assert before[("ragmon_example_score_count", labels(**series))] == 0
                assert before[("ragmon_example_score_sum", labels(**series))] == 0
                for le in ("0.0", "0.5", "0.99", "1.0", "+Inf"):
                    assert before[("ragmon_example_score_bucket", labels(**series, le=le))] == 0
    assert {dict(ls)["metric"] for (name, ls) in before if name == "ragmon_example_score_count"} == set(live)
    exporter.example_scored("checkout-rag", "lexical", result(2, 1), TRACE_ID)
    g = {"pipeline": "checkout-rag", "judge": "lexical", "metric": "groundedness"}
    assert samples(exporter)[("ragmon_example_score_count", labels(**g))] == 1


def test_reserved_or_empty_names_cannot_be_listed() -> None:
    for name in ("other", "unknown", ""):
        with pytest.raises(ValueError, match="cannot be listed"):
            Exporter(window=60, pipelines=("shop", name))


# --- pipeline names that are no label as they stand ---------------------------------------------------
# The rule (ragmon.exporter.pipeline_label_of, README "Metrics exported"): a name of at most 128 bytes of
# UTF-8 without control or invisible characters (what the reports escape, but a joiner between letters and
# a code point Python does not know yet), and not ending in "~" and 12 lowercase hex digits, is its own
# label; any other is its start (those characters as spaces, cut at 115 bytes on a character boundary,
# spaces trimmed), "~", and 12 hex digits of the SHA-256 of the name's UTF-8 bytes. The expected labels
# below are worked out from that rule by hand.

PROMPT = "Answer from the context only. " * 8                      # 30 bytes x 8 = 240 bytes
PROMPT_START = ("Answer from the context only. Answer from the context only. Answer from the context only. "
                "Answer from the context o")                        # its first 115 bytes (3 x 30 + 25)


def sha12(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def pipelines_exported(exporter: Exporter) -> set[str]:
    return {dict(ls)["pipeline"] for (name, ls) in samples(exporter) if name == "ragmon_traces_total"}


def test_a_long_pipeline_name_is_exported_as_its_start_and_a_hash_in_128_bytes() -> None:
    """A prompt sent as the pipeline name by mistake: on every series of its pipeline it would fail a
    scrape under `label_value_length_limit`. Its label is the same in every process (SHA-256, not hash())."""
    exporter = Exporter(window=60)
    label = exporter.pipeline_label(PROMPT)
    assert label == PROMPT_START + "~" + sha12(PROMPT.encode())
    assert len(label.encode()) == 128
    exporter.trace_outcome(label, "scored")
    text = prometheus_client.generate_latest(exporter.registry).decode()
    assert PROMPT not in text
    assert samples(exporter)[("ragmon_traces_total", labels(pipeline=label, outcome="scored"))] == 1
    values = {v for family in text_string_to_metric_families(text) for s in family.samples
              for v in s.labels.values()}
    assert max(len(v.encode()) for v in values) == 128


def test_the_limit_is_128_bytes_of_utf8_and_a_cut_never_splits_a_character() -> None:
    exporter = Exporter(window=60)
    assert exporter.pipeline_label("x" * 128) == "x" * 128
    assert exporter.pipeline_label("x" * 129) == "x" * 115 + "~" + sha12(b"x" * 129)
    assert exporter.pipeline_label("é" * 64) == "é" * 64                # 2 bytes each: 128 bytes
    # 65 x 2 = 130 bytes: 115 bytes hold 57 whole characters (114 bytes); the 58th is not cut in half.
    assert exporter.pipeline_label("é" * 65) == "é" * 57 + "~" + sha12("é".encode() * 65)


def test_long_names_that_start_alike_get_labels_of_their_own_counted_against_the_cap() -> None:
    exporter = Exporter(window=60, max_pipelines=2)
    variant = PROMPT + "Cite your sources."                              # the same first 115 bytes
    names = (PROMPT, variant, "shop", PROMPT, variant)
    first, second = PROMPT_START + "~" + sha12(PROMPT.encode()), PROMPT_START + "~" + sha12(variant.encode())
    assert first != second
    assert [exporter.pipeline_label(name) for name in names] == [first, second, "other", first, second]
    assert pipelines_exported(exporter) == {first, second, "other"}


def test_control_characters_make_a_name_a_label_with_a_hash_and_every_scrape_stays_valid() -> None:
    """The exposition escapes only newline, quote and backslash: a raw carriage return, NUL or terminal
    escape would reach every scraper and terminal. A lone surrogate (which ragmon's decoders replace or
    refuse) would fail every scrape: it has no UTF-8 encoding."""
    exporter = Exporter(window=60)
    sent = {"shop\n": "shop~" + sha12(b"shop\n"),
            "\r\n\tsupport\x00rag\x1b[31m": "support rag [31m~" + sha12(b"\r\n\tsupport\x00rag\x1b[31m"),
            "a\x85b": "a b~" + sha12(b"a\xc2\x85b"),                   # NEL, a C1 control: 2 bytes in UTF-8
            "a\ud800b": "a b~" + sha12(b"a\xed\xa0\x80b")}             # a lone surrogate, as its 3 bytes
    assert {name: exporter.pipeline_label(name) for name in sent} == sent
    text = prometheus_client.generate_latest(exporter.registry).decode()
    assert pipelines_exported(exporter) == set(sent.values())
    assert not [c for c in text if c != "\n" and (c < " " or "\x7f" <= c <= "\x9f")]
    openmetrics = parse_openmetrics(generate_openmetrics(exporter.registry).decode())
    assert {s.labels["pipeline"] for family in openmetrics if family.name == "ragmon_traces"
            for s in family.samples} == set(sent.values())


def test_invisible_characters_make_a_name_a_label_with_a_hash_so_it_cannot_pass_for_another() -> None:
    """Grafana shows a zero-width space (U+200B), a no-break space (U+00A0) or a line separator (U+2028) as
    nothing or as a space: kept, 'support\u200b-rag' read as 'support-rag' in every legend, yet was a
    series apart, and a bidi override (U+202E) reversed the legend after it. Each is what the reports
    escape, and goes as a control character does: a space in the start, the whole name in the hash."""
    exporter = Exporter(window=60)
    sent = {"support\u200b-rag": "support -rag~" + sha12(b"support\xe2\x80\x8b-rag"),
            "checkout-rag\u202e": "checkout-rag~" + sha12(b"checkout-rag\xe2\x80\xae"),
            "a\u2028b": "a b~" + sha12(b"a\xe2\x80\xa8b"),
            "support\xa0rag": "support rag~" + sha12(b"support\xc2\xa0rag"),
            "sup\u200dport": "sup port~" + sha12(b"sup\xe2\x80\x8dport"),   # a joiner joining no letters
            "support-rag": "support-rag"}
    assert {name: exporter.pipeline_label(name) for name in sent} == sent
    text = prometheus_client.generate_latest(exporter.registry).decode()
    assert pipelines_exported(exporter) == set(sent.values())
    assert not {"\u200b", "\u202e", "\u2028", "\xa0", "\u200d"} & set(text)
    with pytest.raises(ValueError, match="list their labels"):
        Exporter(window=60, pipelines=("support\u200b-rag",))


def test_a_joiner_that_spells_an_emoji_or_a_letter_and_an_emoji_newer_than_python_stay_in_the_label() -> None:
    # The reports keep a zero-width joiner between two visible characters that are not ASCII: the
    # technologist emoji (woman, ZWJ, laptop) and the Devanagari conjunct k.ssa are spelled with one.
    # U+1FAE8 (shaking face, Unicode 15) is unassigned in Python 3.11's Unicode 14, which calls it not
    # printable: were it shortened, its label would change with the Python a replica runs on.
    exporter = Exporter(window=60)
    for name in ("support-\U0001f469\u200d\U0001f4bb", "\u0915\u094d\u200d\u0937-rag", "support-\U0001fae8"):
        assert exporter.pipeline_label(name) == name


def test_a_shortened_label_is_logged_once_with_the_names_start_size_and_origin(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="ragmon.exporter")
    exporter = Exporter(window=60, max_pipelines=2)
    origin = {"trace_id": TRACE_ID, "source": "ragmon.pipeline"}
    for name in (PROMPT, PROMPT, "shop", "x" * 200):                     # x * 200: over the cap, `other`
        exporter.pipeline_label(name, origin=lambda: origin)
    [line] = [record for record in caplog.records if "shortened" in record.getMessage()]
    label = PROMPT_START + "~" + sha12(PROMPT.encode())
    assert line.getMessage() == ("pipeline name exported under a shortened label (over 128 bytes, control "
                                 "or invisible characters, ending in '~' and 12 hex digits, or a reserved "
                                 "label: other or unknown)")
    assert (line.pipeline, line.name_bytes, line.trace_id, line.source) == (label, 240, TRACE_ID,
                                                                            "ragmon.pipeline")
    assert line.name_start == PROMPT.strip()                             # spaces collapsed, as in every line


def test_a_listed_name_must_be_a_label_as_it_stands_and_its_label_can_be_listed() -> None:
    label = PROMPT_START + "~" + sha12(PROMPT.encode())
    with pytest.raises(ValueError, match="list their labels") as refused:
        Exporter(window=60, pipelines=("shop", PROMPT))
    assert repr(label) in str(refused.value)
    exporter = Exporter(window=60, pipelines=("shop", label))
    assert pipelines_exported(exporter) == {"shop", label, "other"}     # at 0 from the start
    assert exporter.pipeline_label(PROMPT) == label


def test_a_name_spelled_like_another_names_shortened_label_gets_a_label_of_its_own() -> None:
    """'x' * 200 is exported as 'x' * 115, '~' and 12 hex digits: a name sent spelled exactly so was its
    own label, and the two names shared every series. It ends as a shortened label does, so it is
    shortened too: its start ('x' * 115, the whole name cut at 115 bytes) and its own hash."""
    exporter = Exporter(window=60)
    long, lookalike = "x" * 200, "x" * 115 + "~" + sha12(b"x" * 200)
    long_label, lookalike_label = lookalike, "x" * 115 + "~" + sha12(lookalike.encode())
    assert [exporter.pipeline_label(name) for name in (long, lookalike, long)] == [long_label,
                                                                                   lookalike_label,
                                                                                   long_label]
    exporter.trace_outcome(exporter.pipeline_label(long), "scored")
    exporter.trace_outcome(exporter.pipeline_label(lookalike), "scored")
    assert samples(exporter)[("ragmon_traces_total", labels(pipeline=long_label, outcome="scored"))] == 1
    assert samples(exporter)[("ragmon_traces_total", labels(pipeline=lookalike_label, outcome="scored"))] == 1
    # Short and so spelled too: shortened, its start being the whole name.
    assert exporter.pipeline_label("shop~0123456789ab") == "shop~0123456789ab~" + sha12(b"shop~0123456789ab")
    # Anything else with a "~" is its own label: not 12 digits, not lowercase hex, not at the end.
    for name in ("shop~v2", "shop~0123456789a", "shop~0123456789AB", "shop~0123456789abc",
                 "a~0123456789ab-b"):
        assert exporter.pipeline_label(name) == name


def test_a_shortened_label_can_still_be_listed_and_only_its_long_name_is_counted_under_it() -> None:
    long, label = "x" * 200, "x" * 115 + "~" + sha12(b"x" * 200)
    exporter = Exporter(window=60, pipelines=("shop", label))
    assert [exporter.pipeline_label(name) for name in (long, label)] == [label, "other"]
