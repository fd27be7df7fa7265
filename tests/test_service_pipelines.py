"""`ragmon serve --pipelines`: a fixed set of pipeline labels, whatever order the traces arrive in.

The real CLI in a subprocess, fed by the OTel SDK's own OTLP/HTTP exporter, read back from /metrics.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from polling import wait_metrics

from ragmon import instrument
from ragmon.scrape import Samples, scrape, total

LISTED = ("checkout-rag", "support-rag")
OUTCOMES = ("scored", "not_sampled", "not_rag", "evicted", "error")
DOC = "The warranty lasts 2 years from the date of purchase."


def pipelines_of(samples: Samples) -> set[str]:
    return {dict(labels)["pipeline"] for (name, labels) in samples if name == "ragmon_traces_total"}


def send_rag_traces(http_port: int) -> None:
    """Two RAG requests of a service named search-rag (not listed): the first labelled by that
    service.name, the second by its `ragmon.pipeline` attribute, checkout-rag (listed)."""
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{http_port}/v1/traces", timeout=10)
    provider = TracerProvider(resource=Resource.create({"service.name": "search-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    for pipeline in (None, "checkout-rag"):
        with instrument.rag_span("How long is the warranty?", pipeline=pipeline,
                                 tracer_provider=provider) as rag:
            rag.retrieved([DOC])
            rag.answered("The warranty lasts 2 years.")
    provider.shutdown()


@pytest.mark.parametrize(("args", "env"), [
    (["--pipelines", ",".join(LISTED)], {}),
    ([], {"RAGMON_PIPELINES": ",".join(LISTED)}),
], ids=["flag", "environment"])
def test_listed_pipeline_has_its_label_and_the_rest_is_other(serve_process: Any, args: list[str],
                                                              env: dict[str, str]) -> None:
    with serve_process(["--quiet", "50ms", *args], env) as serve:
        metrics_url = f"http://127.0.0.1:{serve.ready['metrics_port']}/metrics"
        before = scrape(metrics_url)
        # From the first scrape: the 2 listed names and `other`, at 0; nothing else.
        assert pipelines_of(before) == {*LISTED, "other"}
        for pipeline in (*LISTED, "other"):
            for outcome in OUTCOMES:
                assert before[("ragmon_traces_total", frozenset({("pipeline", pipeline),
                                                                 ("outcome", outcome)}))] == 0
            # The score histogram too: its first score after a start is then an increase rate() sees.
            assert before[("ragmon_example_score_count", frozenset({
                ("pipeline", pipeline), ("judge", "lexical"), ("metric", "groundedness")}))] == 0

        send_rag_traces(serve.ready["http_port"])
        after = asyncio.run(wait_metrics(serve.ready["metrics_port"],
                                         lambda s: total(s, "ragmon_traces_total") == 2))
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0, logs
    # One trace each: search-rag's under `other`, checkout-rag's under its own name; no new label value.
    assert total(after, "ragmon_traces_total", pipeline="checkout-rag", outcome="scored") == 1
    assert total(after, "ragmon_traces_total", pipeline="other", outcome="scored") == 1
    assert total(after, "ragmon_examples_scored_total", pipeline="checkout-rag") == 1
    assert total(after, "ragmon_examples_scored_total", pipeline="other") == 1
    assert total(after, "ragmon_example_score_count", pipeline="checkout-rag", metric="groundedness") == 1
    assert pipelines_of(after) == {*LISTED, "other"}


BOTH = "--pipelines and --max-pipelines cannot be combined"
LONG = "checkout-" + "x" * 120      # 129 bytes: its label is its first 115, "~" and 12 hex digits of SHA-256
LONG_LABEL = "checkout-" + "x" * 106 + "~" + hashlib.sha256(LONG.encode()).hexdigest()[:12]


@pytest.mark.parametrize(("argv", "env", "message"), [
    (["--pipelines", "a,,b"], {}, "argument --pipelines: pipeline name 2 of 'a,,b' is empty"),
    # A service named so is exported as "other~" and 12 hex digits of sha256(b"other"): the label to list.
    (["--pipelines", "a", "--pipelines", "other"], {}, "argument --pipelines: 'other' is a reserved label "
     "('other': every unlisted pipeline, 'unknown': traces without a name); a pipeline named 'other' is "
     f"exported as 'other~{hashlib.sha256(b'other').hexdigest()[:12]}': list that label instead"),
    ([], {"RAGMON_PIPELINES": "a,unknown"}, "RAGMON_PIPELINES='a,unknown': 'unknown' is a reserved label "
     "('other': every unlisted pipeline, 'unknown': traces without a name); a pipeline named 'unknown' is "
     f"exported as 'unknown~{hashlib.sha256(b'unknown').hexdigest()[:12]}': list that label instead"),
    # A blank variable is an unset one (the default labels); a list of nothing is a mistake.
    ([], {"RAGMON_PIPELINES": ","}, "--pipelines (RAGMON_PIPELINES) names no pipeline"),
    (["--pipelines", "a", "--max-pipelines", "5"], {}, BOTH),
    (["--pipelines", "a"], {"RAGMON_MAX_PIPELINES": "5"}, BOTH),
    (["--pipelines", f"a,{LONG}"], {}, "argument --pipelines: pipeline name 2 is over 128 bytes of UTF-8 "
                                       f"or has control or invisible characters, so ragmon exports it as "
                                       f"'{LONG_LABEL}'"),
], ids=["empty-item", "other", "unknown-in-env", "empty-env", "both-flags", "both-flag-and-env", "too-long"])
def test_bad_pipeline_lists_exit_2_with_one_line_naming_the_problem(
        ragmon_cmd: list[str], argv: list[str], env: dict[str, str], message: str) -> None:
    result = subprocess.run([*ragmon_cmd, "serve", "--http-listen", "127.0.0.1:0", "--grpc-listen", "off",
                             "--metrics-listen", "127.0.0.1:0", *argv], capture_output=True, text=True,
                            timeout=60, check=False, env={**_environ(), **env})
    assert result.returncode == 2
    # argparse's own errors come after the usage lines; ragmon's own (RagmonError) alone.
    errors = [line for line in result.stderr.splitlines() if line.startswith("ragmon serve: error: ")]
    assert len(errors) == 1 and message in errors[0], result.stderr
    assert "Traceback" not in result.stderr


def _environ() -> dict[str, str]:
    """The test's environment without any RAGMON_* variable, so only the case's own are set."""
    return {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
