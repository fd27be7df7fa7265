"""The demo app's traces go through the real OTel SDK exporter into a running sidecar and are scored;
the hallucinating build scores lower than the healthy one, by amounts worked out by hand."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from ragmon.demo.app import run_phase
from ragmon.scrape import Samples, scrape, total
from ragmon.serve_config import ServeConfig
from ragmon.service import Sidecar

RETURNS_S1 = "Most items can be returned within 30 days of delivery for a full refund."
RETURNS_S3 = "Final sale items, opened software and personalised products cannot be returned."


async def scrape_until_decided(port: int, traces: int) -> Samples:
    deadline = time.monotonic() + 15
    while True:
        # urllib blocks: off the event loop, which serves the very page being read.
        samples = await asyncio.to_thread(scrape, f"http://127.0.0.1:{port}/metrics")
        if total(samples, "ragmon_traces_total") >= traces or time.monotonic() > deadline:
            return samples
        await asyncio.sleep(0.05)


async def test_healthy_and_hallucinating_builds_are_scored_as_worked_out_by_hand(tmp_path: Path) -> None:
    sidecar = Sidecar(ServeConfig(http_listen=("127.0.0.1", 0), grpc_listen=None,
                                  metrics_listen=("127.0.0.1", 0), quiet=0.05, decision_wait=5.0))
    ports = await sidecar.start()
    try:
        for phase in ("healthy", "hallucinating"):
            # --requests 2 asks q01 and q02; both retrieve the returns policy first.
            await asyncio.to_thread(run_phase, phase, requests=2, endpoint=f"http://127.0.0.1:{ports.http}",
                                    service_name=f"demo-{phase}", golden=tmp_path / f"{phase}.jsonl")
        samples = await scrape_until_decided(ports.metrics, 4)
    finally:
        await sidecar.stop()

    def claims(phase: str, verdict: str) -> float:
        return total(samples, "ragmon_claims_total", pipeline=f"demo-{phase}", verdict=verdict)

    def groundedness_sum(phase: str) -> float:
        return total(samples, "ragmon_example_score_sum", pipeline=f"demo-{phase}", metric="groundedness")

    assert total(samples, "ragmon_traces_total", outcome="scored") == 4
    # Healthy: both answers quote S1 and S3 of the returns policy verbatim: 2 + 2 supported claims.
    assert (claims("healthy", "supported"), claims("healthy", "unsupported")) == (4, 0)
    assert groundedness_sum("healthy") == 2.0
    # Hallucinating: S1 says 46 days (no retrieved policy says 46): unsupported; S3 verbatim: supported;
    # the invented sentence carries a number no policy has: unsupported. 1/3 per answer.
    assert (claims("hallucinating", "supported"), claims("hallucinating", "unsupported")) == (2, 4)
    assert abs(groundedness_sum("hallucinating") - 2 / 3) < 1e-12

    golden = [json.loads(line) for line in (tmp_path / "healthy.jsonl").read_text().splitlines()]
    assert [row["id"] for row in golden] == ["q01", "q02"]
    assert golden[0]["answer"] == f"{RETURNS_S1} {RETURNS_S3}"
    assert golden[0]["contexts"][0]["id"] == "returns" and golden[0]["relevant_ids"] == ["returns"]
