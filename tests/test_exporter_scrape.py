"""/metrics as Prometheus 2.42 scrapes it: the real CLI in a subprocess, fed by the OTel SDK's own
OTLP/HTTP exporter, read over HTTP with the Accept and Accept-Encoding headers Prometheus sends, through
prometheus_client's OpenMetrics parser and `promtool check metrics`."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import signal
import subprocess
import urllib.request
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from polling import wait_metrics
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_openmetrics

from ragmon import instrument
from ragmon.scrape import total

PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
                     "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")
"""What Prometheus 2.42 asks a target for (scrape/scrape.go, scrapeAcceptHeader)."""
SERVICES = ("other", "svc-1", "svc-2")
"""In that order, under --max-pipelines 2: the service named `other` and svc-1 take the two labels."""


def send_rag_trace(http_port: int, service: str) -> None:
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{http_port}/v1/traces", timeout=10)
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with instrument.rag_span("How long is the warranty?", tracer_provider=provider) as rag:
        rag.retrieved(["The warranty lasts 2 years from the date of purchase."])
        rag.answered("The warranty lasts 2 years.")
    provider.shutdown()


def get(url: str, headers: dict[str, str]) -> tuple[dict[str, str], bytes]:
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=10) as response:
        return dict(response.headers), response.read()


def test_a_service_named_other_and_the_overflow_stay_apart_in_what_prometheus_scrapes(
        serve_process: Any) -> None:
    with serve_process(["--quiet", "50ms", "--max-pipelines", "2"]) as serve:
        for sent, service in enumerate(SERVICES, 1):  # one at a time: the order decides who gets a label
            send_rag_trace(serve.ready["http_port"], service)
            asyncio.run(wait_metrics(serve.ready["metrics_port"], lambda s, sent=sent: total(
                s, "ragmon_traces_total", outcome="scored") == sent))
        url = f"http://127.0.0.1:{serve.ready['metrics_port']}/metrics"
        headers, body = get(url, {"Accept": PROMETHEUS_ACCEPT, "Accept-Encoding": "gzip"})
        plain_headers, plain = get(url, {})
        returncode, logs = serve.stop(signal.SIGTERM)
    assert returncode == 0, logs

    assert headers["Content-Type"].startswith("application/openmetrics-text; version=1.0.0")
    assert headers["Content-Encoding"] == "gzip"
    text = gzip.decompress(body).decode()
    assert text.endswith("# EOF\n") and "_created" not in text
    families = {family.name: family for family in parse_openmetrics(text)}
    scored = {s.labels["pipeline"]: s.value for s in families["ragmon_traces"].samples
              if s.labels["outcome"] == "scored"}
    named_other = "other~" + hashlib.sha256(b"other").hexdigest()[:12]
    # svc-2 found both labels taken: it alone is `other`, and the overflow counter says so.
    assert scored == {named_other: 1, "svc-1": 1, "other": 1}
    assert [(s.name, s.value) for s in families["ragmon_pipeline_overflow"].samples] == [
        ("ragmon_pipeline_overflow_total", 1)]
    [said] = [line for line in logs if line["message"].startswith("--max-pipelines 2 reached")]
    assert (said["name_start"], said["source"]) == ("svc-2", "service.name")

    assert plain_headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    check = subprocess.run(["promtool", "check", "metrics"], input=plain, capture_output=True, timeout=60)
    assert (check.returncode, check.stdout, check.stderr) == (0, b"", b"")
