"""The sidecar's log lines for traces it fails on, at most one per kind of failure a minute.

A misconfigured app fails the same way on every trace (OpenLLMetry with TRACELOOP_TRACE_CONTENT=false
leaves every retrieval without documents), and so does a broken judge: at 200 traces/s, one line per
trace is 200 lines a second that say the same thing. `ragmon_traces_total{outcome="error"}` counts every
trace; the log says what is wrong and where. So each kind of failure gets at most one line per window
(see ragmon.logs), complete (trace id, error, and the traceback of anything that is not a RagmonError),
and that line counts the ones like it left out since the previous one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from ragmon.errors import RagmonError
from ragmon.logs import MAX_KEYS, MAX_MESSAGE, WINDOW_SECONDS, LineLimit, clip, more_like_it
from ragmon.options import mib
from ragmon.semconv import ragmon as convention
from ragmon.semconv.common import ExtractionError
from ragmon.traces import SERVICE_KEY, Span, Trace

if TYPE_CHECKING:
    from ragmon.serve_config import ServeConfig

UNDOCUMENTED = ("a model call with no documents in its trace: groundedness is not measured for it. If "
                "the app retrieves, the search is in another trace (put one span around both, a request span "
                "or @workflow) or records no documents (record them as ragmon.contexts)")


MAX_LINES = 60
"""Lines a window for all failures together: what tells two failures apart comes from the sender (a
service name per pod, or per request from a misbehaving app), and 2,000 distinct ones had written 2,000
lines in seconds."""
NOT_READ = ("its spans record no question, documents or answer in a convention ragmon reads (OpenInference, "
            "OTel GenAI, OpenLLMetry, ragmon's own ragmon.* attributes), so it is counted not_rag. If this "
            "service answers from retrieved documents, record them: ragmon.instrument, or an instrumentation "
            "of its framework following one of those conventions; an exporter alone sends its spans without "
            "them. Said once a minute for a service none of whose traces so far was RAG")

_CONVENTION = ", ".join(sorted(convention.ATTRIBUTES))


FULL = (f"more traces failed than {MAX_LINES} log lines a minute can tell: lines for failures of other "
        "kinds are left out until the minute is over (ragmon_traces_total counts every trace)")


class FailureLog:
    """Rate-limited logging of failed traces: a `LineLimit` keyed by what makes two failures the same."""

    def __init__(self, logger: logging.Logger, *, window: float = WINDOW_SECONDS, max_keys: int = MAX_KEYS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._logger = logger
        self._limit = LineLimit(window=window, max_keys=max_keys, clock=clock, max_lines=MAX_LINES)
        self._full = LineLimit(window=window, clock=clock)
        self._max_keys = max_keys
        self._rag_services: dict[str | None, None] = {}
        """`service.name`s that sent a RAG trace (scored or failed to extract), first heard first, at most
        `max_keys`: their traces that are not RAG (a health check) are normal and not `unmarked`."""

    def unextractable(self, trace: Trace, pipeline: str, error: Exception) -> None:
        """A trace whose example cannot be extracted, alike per pipeline label, service and, for an
        ExtractionError, attribute (one misconfigured instrumentation); any other exception is a bug in
        extraction, alike per exception type. The service is in the key because the apps without a label
        of their own share `other`: one app's line must not hide another's. The span's name is not: HTTP
        spans are named after their URL ("POST /ask/1234"), and an app whose every request span failed
        wrote a line a trace."""
        service = _clipped_service(trace, error.span_id if isinstance(error, ExtractionError) else None)
        what = ((clip(error.attribute),) if isinstance(error, ExtractionError) else (type(error).__name__,))
        self._log(("extract", pipeline, service, *what), logging.WARNING, "trace cannot be extracted",
                  None if isinstance(error, RagmonError) else error,
                  trace_id=trace.trace_id, pipeline=pipeline, service=service,
                  error=clip(str(error), MAX_MESSAGE))

    def undocumented(self, trace: Trace, pipeline: str) -> None:
        """An answer scored without documents, alike per pipeline label and service: groundedness and the
        other document metrics are undefined for it, and the count of scored traces alone hid that an app
        built as two traces (no span around its search and its model call) or a search recording no
        documents was never measured."""
        service = _clipped_service(trace, None)
        self._log(("undocumented", pipeline, service), logging.WARNING, "answer scored without documents",
                  None, trace_id=trace.trace_id, pipeline=pipeline, service=service, detail=UNDOCUMENTED)

    def unasked(self, trace: Trace, pipeline: str, why: str) -> None:
        """An answer scored with its documents but no question, alike per pipeline label and service:
        groundedness is measured, answer_relevance is undefined for it, and nothing had said why (an app
        hiding its inputs, a prompt template whose question ragmon does not find). `why`:
        `ragmon.semconv.extract.unasked_note`."""
        service = _clipped_service(trace, None)
        self._log(("unasked", pipeline, service), logging.WARNING, "answer scored without a question", None,
                  trace_id=trace.trace_id, pipeline=pipeline, service=service, detail=why)

    def set_aside(self, trace: Trace, pipeline: str, why: str) -> None:
        """A trace scored with parts of it left out (`why`: `ragmon.semconv.extract.extract_noted`): several
        requests, one after another, of which only the last is scored, or blank cited or relevant ids;
        alike per pipeline label and service. The trace counts as one `scored`, and nothing had said what
        its figures leave out."""
        service = _clipped_service(trace, None)
        self._log(("set_aside", pipeline, service), logging.WARNING, "trace scored with parts left out",
                  None, trace_id=trace.trace_id, pipeline=pipeline, service=service, detail=why)

    def unread(self, trace: Trace, pipeline: str, why: str) -> None:
        """A trace counted `not_rag` whose spans follow a convention ragmon does not read
        (`ragmon.semconv.unread`), alike per pipeline label, service and reason: the count alone said
        nothing of why no trace of the app was ever scored."""
        service = _clipped_service(trace, None)
        self._log(("unread", pipeline, service, why), logging.WARNING, "trace not read as RAG", None,
                  trace_id=trace.trace_id, pipeline=pipeline, service=service, detail=why)

    def misnamed(self, trace: Trace) -> bool:
        """Warns of each `ragmon.*` attribute of the trace that is none of ragmon's convention, alike per
        service and attribute, with the attribute it likely meant; whether there was any. Read as no
        attribute, a misspelt `ragmon.anwser` had left the trace `scored` without an answer, or `not_rag`,
        and nothing said so, where `ragmon replay` names the same typo in a file."""
        unknown = convention.unknown_attributes(trace.spans)
        for span, attribute in unknown:
            service = _clipped_service(trace, span.span_id)
            named = clip(attribute)
            if (suppressed := self._admit(("misnamed", service, named))) is not None:
                meant = convention.meant(named)  # only for a line written: a sender chooses the names
                hint = f"did you mean {meant!r}?" if meant else f"it reads {_CONVENTION}"
                self._write(logging.WARNING, "span attribute not read", None, suppressed,
                            trace_id=trace.trace_id, span=clip(span.name), service=service, attribute=named,
                            meant=meant, detail=f"{named!r} is none of the ragmon.* attributes ragmon reads, "
                                                f"so it is ignored: {hint}")
        return bool(unknown)

    def rag(self, trace: Trace) -> None:
        """Notes the services of a RAG trace, whose traces that are not RAG `unmarked` then passes over.
        Every service of the trace: the app's own spans may follow a gateway's, whose health checks are
        as normal."""
        services = self._rag_services
        resource = None
        for span in trace.spans:
            if span.resource is resource:  # a batch's spans of one service share its mapping: one look
                continue
            resource = span.resource
            found = resource.get("service.name")
            name = found if isinstance(found, str) and found else None  # as `service_name` reads it
            if name not in services:
                services[name] = None
                if len(services) > self._max_keys:
                    del services[next(iter(services))]

    def unmarked(self, trace: Trace, pipeline: str) -> None:
        """A `not_rag` trace with nothing else to say of it (`unread`, `misnamed`), from a service that has
        sent no RAG trace, alike per service. At info, not warning: a service that is not RAG sends such
        traces by design (a Collector forwarding every app's), so this is no failure; but an app exporting
        spans without the question, documents and answer on them (the README's SDK snippet alone) saw
        `not_rag` climb and no word why."""
        if service_name(trace, None) in self._rag_services:
            return
        service = _clipped_service(trace, None)
        self._log(("unmarked", service), logging.INFO, "trace carries nothing ragmon reads as RAG", None,
                  trace_id=trace.trace_id, pipeline=pipeline, service=service, detail=NOT_READ)

    def too_large(self, trace_id: str, pipeline: str, needs: int, max_buffer: int) -> None:
        """A sampled trace not scored because scoring it would take more memory than --max-buffer holds
        (`ragmon.scoring.working_bytes`), alike per pipeline label. Scored all the same, it could take the
        worker or the sidecar past the container's memory limit; an OOM kill loses every trace held."""
        self._log(("too_large", pipeline), logging.WARNING, "trace too large to score", None,
                  trace_id=trace_id, pipeline=pipeline,
                  detail=(f"scoring its documents and answer would take about {mib(needs)} in ragmon and a "
                          f"lexical worker, more than --max-buffer ({mib(max_buffer)}): raise --max-buffer, "
                          "and the container's memory limit with it, to score traces this large"))

    def refused(self, trace: Trace, pipeline: str) -> None:
        """A trace every span of which was refused as too large for --max-buffer (`Decided.reason`
        "refused"), alike per pipeline label and the name its first refused span carried
        (`Trace.named_by`), logged as `named` with `source`, the attribute it came from (ragmon.pipeline or
        service.name). The name is in the key because apps whose names get no label (unlisted, past the
        cap) share `other`: one app's line must not hide another's, and it is all the line has to say whose
        documents are too large. Counted `error`; its spans' count (ragmon_spans_rejected_total) said
        nothing of the trace they made."""
        named_by = trace.named_by
        source, named = (None, None) if named_by is None else (named_by[0], clip(named_by[1]))
        lost = trace.spans_lost
        # `service` as on every other failure line, which log queries and the runbook filter by.
        service = named if source == SERVICE_KEY else None
        self._log(("refused", pipeline, named), logging.WARNING, "trace lost every span it sent", None,
                  trace_id=trace.trace_id, pipeline=pipeline, named=named, source=source, service=service,
                  detail=(f"its {lost} span{'s were' if lost > 1 else ' was'} refused (too_many_bytes), each "
                          "holding more than --max-buffer holds for one trace once decoded, so nothing of it "
                          "was scored: raise --max-buffer, or have the app record less on one span (its "
                          "documents, as ragmon.contexts, are usually what is large)"))

    def late(self, span: Span, decided_by: str, config: ServeConfig) -> None:
        """A span of a trace already decided (`late`), alike per service and what decided the trace
        (`Assembler.decided_by`), as each has its own setting to raise: an app that reuses one trace id
        for every request saw its first --decision-wait of spans make one trace and every later span
        dropped as late, only a rising count saying anything; the trace id it keeps sending is named. Told
        both --quiet and --decision-wait, a user whose trace --quiet had decided (its root exported a batch
        before its children) raised --decision-wait, which changed nothing: the line names the one rule."""
        service = _clipped_service(Trace(span.trace_id, (span,)), None)
        rule, fix = _late_rule(decided_by, config)
        self._log(("late", service, decided_by), logging.WARNING, "span came after its trace was decided",
                  None, trace_id=span.trace_id, service=service, decided_by=decided_by,
                  detail=(f"a span of trace {span.trace_id} came after the trace was decided and was dropped "
                          f"as late: {rule}. If this trace id keeps coming back, the app reuses one trace id "
                          "for many requests (its trace context is not reset between them: each request must "
                          f"start a trace of its own); else {fix}"))

    def scoring_failed(self, trace_id: str, judge: str, error: Exception) -> None:
        """A judge that raised, alike per judge and exception type."""
        self._log(("score", judge, type(error).__name__), logging.ERROR, "scoring failed", error,
                  trace_id=trace_id, judge=judge)

    def recording_failed(self, trace_id: str, judge: str, error: Exception) -> None:
        """A bug past the judge (exporting, capturing), alike per judge and exception type."""
        self._log(("record", judge, type(error).__name__), logging.ERROR, "recording a scored trace failed",
                  error, trace_id=trace_id, judge=judge)

    def _log(self, key: Hashable, level: int, message: str, exc_info: Exception | None,
             **fields: object) -> None:
        """`exc_info`: the exception whose traceback the line carries, if any."""
        suppressed = self._admit(key)
        if suppressed is not None:
            self._write(level, message, exc_info, suppressed, **fields)

    def _admit(self, key: Hashable) -> int | None:
        """`LineLimit.admit`, saying once a window when lines are left out for the window's cap."""
        suppressed = self._limit.admit(key)
        if suppressed is None and self._limit.full and self._full.admit("full") is not None:
            self._logger.warning(FULL)
        return suppressed

    def _write(self, level: int, message: str, exc_info: Exception | None, suppressed: int,
               **fields: object) -> None:
        self._logger.log(level, more_like_it(message, suppressed), exc_info=exc_info,
                         extra={**fields, "suppressed": suppressed})


def _late_rule(decided_by: str, config: ServeConfig) -> tuple[str, str]:
    """How a trace was decided (one of `ragmon.traces.DECIDED_BY`), and what would have kept it open for a
    span that came after."""
    match decided_by:
        case "quiet":
            return (f"it was decided --quiet {config.quiet:g}s after its last span, its root having ended",
                    "its spans reach ragmon more than --quiet apart once its root has ended (exported in "
                    "separate batches, or parts sent by several services): raise --quiet above the time "
                    "between them")
        case "decision_wait":
            return (f"it was decided --decision-wait {config.decision_wait:g}s after its first span, the "
                    "latest a trace is held", "its requests, or the export of their spans, take longer than "
                    "--decision-wait: raise it")
        case "max_traces":
            return (f"it was evicted undecided, the buffer holding --max-traces {config.max_traces} traces",
                    "traces come faster than they are decided: raise --max-traces")
        case "max_buffer":
            return (f"it was evicted undecided, the buffer holding --max-buffer ({mib(config.max_buffer)})",
                    "the traces buffered take more memory than that: raise --max-buffer, and the "
                    "container's memory limit with it")
        case _:  # "drain"
            return ("it was decided as ragmon stopped (the drain)",
                    "nothing is to raise: ragmon was stopping, and spans sent from then on are its "
                    "successor's")


def _clipped_service(trace: Trace, span_id: str | None) -> str | None:
    """`service_name`, cut to a log field's length: the sender's, any length."""
    service = service_name(trace, span_id)
    return None if service is None else clip(service)


def service_name(trace: Trace, span_id: str | None) -> str | None:
    """`service.name` of the span `span_id` (the one that failed), else of the first span that has one:
    in a trace across services, the app whose instrumentation is wrong. Read leniently, as the trace may
    be malformed."""
    spans = [span for span in trace.spans if span.span_id == span_id] + list(trace.spans)
    for span in spans:
        name = span.resource.get("service.name")
        if isinstance(name, str) and name:
            return name
    return None
