"""Reading a ragmon /metrics page back, with prometheus_client's own parser: for the demo tour, the
ingest benchmark and the end-to-end tests, which all check what a scraper would really see."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
"""(sample name, label set) -> value."""


def parse(text: str) -> Samples:
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def scrape(url: str, timeout: float = 5.0) -> Samples:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return parse(response.read().decode())


def total(samples: Samples, name: str, **labels: str) -> float:
    """Sum of the samples of `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)
