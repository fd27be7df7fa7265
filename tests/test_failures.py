"""What makes two failed traces the same problem, so that they share one log line a window.

Driven by an injected clock that never moves: every line after the first of a key is left out. The
sidecar's use of it (a flood of traces, the window, the count) is tested in tests/test_service.py.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest

from ragmon.failures import FailureLog
from ragmon.semconv.common import ExtractionError
from ragmon.serve_config import ServeConfig
from ragmon.traces import Span, Trace

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


@pytest.fixture
def failures() -> FailureLog:
    return FailureLog(logging.getLogger("ragmon.service"), clock=lambda: 1000.0)


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture) -> Callable[[], list[logging.LogRecord]]:
    caplog.set_level(logging.WARNING, logger="ragmon.service")
    return lambda: [r for r in caplog.records if r.name == "ragmon.service"]


def failing(span_name: str, attribute: str, problem: str, service: str = "shop-app",
            trace_id: str = TRACE) -> tuple[Trace, ExtractionError]:
    """A one-span trace of `service` and the ExtractionError its span gives."""
    span = Span(trace_id, "00f067aa0ba902b7", None, span_name, resource={"service.name": service})
    return Trace(trace_id, (span,)), ExtractionError(span, attribute, problem)


def a_trace(trace_id: str) -> Trace:
    return failing("retrieve", "ragmon.contexts", "-", trace_id=trace_id)[0]


def raised(error: Exception) -> Exception:
    """The exception as the sidecar holds it: raised and caught, with its traceback."""
    try:
        raise error
    except Exception as caught:
        return caught


def test_extraction_errors_are_alike_per_pipeline_service_and_attribute(failures, lines):
    def fail(n: str, pipeline: str, span_name: str, attribute: str, problem: str = "missing",
             service: str = "shop-app") -> None:
        trace, error = failing(span_name, attribute, problem, service, trace_id=n * 32)
        failures.unextractable(trace, pipeline, error)

    output = "traceloop.entity.output"
    fail("1", "shop", "retrieve", output)
    fail("2", "shop", "retrieve", output, "doc 3")  # the same but for trace and wording: left out
    fail("3", "other", "retrieve", output)
    fail("4", "shop", "retrieve", output, service="shop-v2")
    fail("5", "shop", "retrieve", "ragmon.contexts")
    fail("6", "shop", "search", output)  # another span's name, as URL-named spans have: left out
    assert [(r.trace_id[0], r.pipeline, r.service) for r in lines()] == [
        ("1", "shop", "shop-app"), ("3", "other", "shop-app"), ("4", "shop", "shop-v2"),
        ("5", "shop", "shop-app")]
    first = lines()[0]
    assert (first.getMessage(), first.levelno, first.suppressed, first.exc_info) == (
        "trace cannot be extracted", logging.WARNING, 0, None)   # a RagmonError: its message says it all
    # The error's own message: its source (the trace), the span, then the problem.
    assert first.error == f"trace {'1' * 32}: span 'retrieve' (span id 00f067aa0ba902b7): missing"


def test_the_service_is_the_failing_spans(failures, lines):
    # A trace across two services: the frontend's root span is fine, the retriever service's span is not.
    root = Span(TRACE, "a" * 16, None, "POST /ask", resource={"service.name": "frontend"})
    retrieve = Span(TRACE, "b" * 16, "a" * 16, "retrieve", resource={"service.name": "retriever"})
    failures.unextractable(Trace(TRACE, (root, retrieve)), "other",
                           ExtractionError(retrieve, "ragmon.contexts", "not JSON"))
    failures.unextractable(Trace(TRACE, (root, retrieve)), "other", raised(ValueError("a bug")))
    assert [r.service for r in lines()] == ["retriever", "frontend"]   # a bug names no span: the first


def test_a_bug_in_extraction_is_alike_per_exception_type_and_keeps_its_traceback(failures, lines):
    failures.unextractable(a_trace("1" * 32), "shop", raised(ValueError("bad value 1")))
    failures.unextractable(a_trace("2" * 32), "shop", raised(ValueError("bad value 2")))
    failures.unextractable(a_trace("3" * 32), "shop", raised(KeyError("missing")))
    assert [(r.trace_id[0], r.error) for r in lines()] == [("1", "bad value 1"), ("3", "'missing'")]
    assert all(r.exc_info is not None and r.exc_info[2] is not None for r in lines())


def test_scoring_and_recording_failures_are_alike_per_judge_and_exception_type(failures, lines):
    failures.scoring_failed("t1", "lexical", raised(RuntimeError("pool broke")))
    failures.scoring_failed("t2", "lexical", raised(RuntimeError("pool broke again")))   # left out
    failures.scoring_failed("t3", "claude", raised(RuntimeError("pool broke")))
    failures.scoring_failed("t4", "lexical", raised(TimeoutError()))
    failures.recording_failed("t5", "lexical", raised(RuntimeError("disk full")))  # not scoring: own line
    failures.recording_failed("t6", "lexical", raised(RuntimeError("disk full")))  # left out
    assert [(r.getMessage(), r.trace_id, r.judge) for r in lines()] == [
        ("scoring failed", "t1", "lexical"), ("scoring failed", "t3", "claude"),
        ("scoring failed", "t4", "lexical"), ("recording a scored trace failed", "t5", "lexical")]
    assert all(r.levelno == logging.ERROR and r.exc_info is not None and r.exc_info[2] is not None
               for r in lines())


def test_what_a_sender_names_is_clipped_in_the_line_and_in_what_is_remembered(failures, lines):
    # A span name or service of 256 KiB: a thousand remembered problems of that size would be 250 MiB,
    # and one log line of it unreadable. Each is cut to 300 characters (297 and "..."), and the error
    # message, which quotes the span name, to 2,000.
    huge = "x" * (256 << 10)
    trace, error = failing(huge, "ragmon.contexts", "missing", service=huge)
    failures.unextractable(trace, "other", error)
    [line] = lines()
    assert line.service == "x" * 297 + "..." and len(line.error) == 2000  # type: ignore[attr-defined]
    assert all(len(part) <= 300 for key in failures._limit._keys for part in key if isinstance(part, str))


def test_answers_without_documents_are_alike_per_pipeline_and_service(failures, lines):
    failures.undocumented(a_trace("1" * 32), "shop")
    failures.undocumented(a_trace("2" * 32), "shop")  # the same app again: left out this window
    failures.undocumented(a_trace("3" * 32), "support")
    assert [(r.trace_id[0], r.pipeline, r.service, r.getMessage()) for r in lines()] == [
        ("1", "shop", "shop-app", "answer scored without documents"),
        ("3", "support", "shop-app", "answer scored without documents")]


def test_an_app_whose_every_request_span_has_its_own_name_writes_one_line_a_minute(failures, lines):
    # 2,000 traces cut short, each request span named after its URL: one line.
    for n in range(2_000):
        trace, error = failing(f"POST /ask/{n}", "ragmon.contexts", "cut short", trace_id=f"{n:032x}")
        failures.unextractable(trace, "shop", error)
    assert [r.trace_id for r in lines()] == [f"{0:032x}"]


def test_failures_told_apart_by_the_sender_write_at_most_60_lines_a_minute_and_say_so(lines):
    # 2,000 traces each from a service of its own: 60 lines, then one line saying the rest are left out;
    # a minute later, the next of them is written again, and so is a service seen in the first minute,
    # counting the one line of it left out (one of the last 1,000 seen: the keys remembered).
    now = [1000.0]
    failures = FailureLog(logging.getLogger("ragmon.service"), clock=lambda: now[0])

    def fail(n: int) -> None:
        trace, error = failing("retrieve", "ragmon.contexts", "cut short", service=f"app-{n}",
                               trace_id=f"{n + 1:032x}")
        failures.unextractable(trace, "other", error)

    for n in range(2_000):
        fail(n)
    written = lines()
    assert len(written) == 61
    assert [r.service for r in written[:60]] == [f"app-{n}" for n in range(60)]
    assert written[60].getMessage().startswith("more traces failed than 60 log lines a minute can tell")
    now[0] += 60.0
    fail(2_000)
    fail(1_500)
    assert [(r.service, r.suppressed) for r in lines()[61:]] == [("app-2000", 0), ("app-1500", 1)]


LATE_CONFIG = ServeConfig(quiet=2.0, decision_wait=15.0, max_traces=500, max_buffer=64 * 2**20)
LATE_PREFIX = f"a span of trace {TRACE} came after the trace was decided and was dropped as late: "
REUSED_ID = ("If this trace id keeps coming back, the app reuses one trace id for many requests (its trace "
             "context is not reset between them: each request must start a trace of its own); else ")


def late_line(failures: FailureLog, lines: Callable[[], list[logging.LogRecord]],
              decided_by: str) -> logging.LogRecord:
    span = Span(TRACE, "00f067aa0ba902b7", "b7ad6b7169203331", "lookup", resource={"service.name": "shop"})
    failures.late(span, decided_by, LATE_CONFIG)
    [line] = lines()
    assert (line.getMessage(), line.trace_id, line.service, line.decided_by) == (
        "span came after its trace was decided", TRACE, "shop", decided_by)
    return line


def test_a_late_span_of_a_trace_quiet_decided_names_quiet_alone(failures, lines):
    # --quiet 2s, --decision-wait 15s: a root exported alone and its children 3.5 s later was decided by
    # --quiet at 2 s, and the line named --decision-wait too ("raise it"), which changed nothing.
    detail = late_line(failures, lines, "quiet").detail
    assert detail == (LATE_PREFIX + "it was decided --quiet 2s after its last span, its root having ended. "
                      + REUSED_ID + "its spans reach ragmon more than --quiet apart once its root has ended "
                      "(exported in separate batches, or parts sent by several services): raise --quiet "
                      "above the time between them")
    assert "--decision-wait" not in detail


def test_a_late_span_of_a_trace_held_to_its_decision_wait_names_decision_wait_alone(failures, lines):
    detail = late_line(failures, lines, "decision_wait").detail
    assert detail == (LATE_PREFIX + "it was decided --decision-wait 15s after its first span, the latest a "
                      "trace is held. " + REUSED_ID + "its requests, or the export of their spans, take "
                      "longer than --decision-wait: raise it")
    assert "--quiet" not in detail


def test_a_late_span_of_an_evicted_trace_names_the_limit_that_evicted_it(failures, lines):
    detail = late_line(failures, lines, "max_traces").detail
    assert detail.startswith(LATE_PREFIX + "it was evicted undecided, the buffer holding --max-traces 500 "
                             "traces. " + REUSED_ID)
    assert detail.endswith("raise --max-traces")
    assert "--quiet" not in detail and "--decision-wait" not in detail and "--max-buffer" not in detail


def test_a_late_span_of_a_trace_evicted_for_memory_names_max_buffer(failures, lines):
    detail = late_line(failures, lines, "max_buffer").detail
    assert detail.startswith(LATE_PREFIX + "it was evicted undecided, the buffer holding --max-buffer "
                             "(64 MiB). " + REUSED_ID)
    assert detail.endswith("raise --max-buffer, and the container's memory limit with it")
    assert "--max-traces" not in detail


def test_a_late_span_of_a_drained_trace_names_nothing_to_raise(failures, lines):
    detail = late_line(failures, lines, "drain").detail
    assert detail == (LATE_PREFIX + "it was decided as ragmon stopped (the drain). " + REUSED_ID
                      + "nothing is to raise: ragmon was stopping, and spans sent from then on are its "
                      "successor's")
    assert "raise --" not in detail


def test_late_spans_of_one_service_decided_by_two_rules_get_a_line_each(failures, lines):
    # Each rule has its own setting to raise: the second rule's line is not left out behind the first's,
    # while the same rule again is (the clock never moves).
    span = Span(TRACE, "00f067aa0ba902b7", "b7ad6b7169203331", "lookup", resource={"service.name": "shop"})
    for decided_by in ("quiet", "decision_wait", "quiet"):
        failures.late(span, decided_by, LATE_CONFIG)
    assert [line.decided_by for line in lines()] == ["quiet", "decision_wait"]
