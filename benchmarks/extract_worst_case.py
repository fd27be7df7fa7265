"""CPU time of extracting one trace whose model calls carry long prompts, against many documents.

Extraction runs on the sidecar's event loop, and it looks for the retrieved documents in the model calls'
inputs (which call answered, whether the user's message is a prompt stuffed with documents) and for
numbered sources in the answering call's prompt: work that grows with calls x documents x prompt length
unless bounded. It is (ragmon.semconv.extract: `_PROBED_CALLS`, `_PROBED_DOCUMENTS`, `_PROBE`): each
line should stay in milliseconds, whatever the trace.

Run: `.venv/bin/python benchmarks/extract_worst_case.py`.
"""

from __future__ import annotations

import random
import time

from ragmon.semconv.extract import extract
from ragmon.traces import Span, Trace

TRACE_ID = "a" * 32
CASES = ((5, 3, 5_000), (200, 50, 20_000), (100, 900, 100_000))
"""(documents, model calls, characters of each prompt)."""


def trace(documents: int, calls: int, prompt: int, rng: random.Random) -> Trace:
    """OpenInference spans: a chain, a retriever with `documents` of 10,000 characters, and `calls` model
    calls whose prompts (input value and user message) hold none of them and cite sources [1]-[9]."""
    words = [f"w{i}" for i in range(5000)]

    def text(size: int) -> str:
        return " ".join(rng.choices(words, k=size // 6))

    retrieved = {"openinference.span.kind": "RETRIEVER", "input.value": "q?"}
    for i in range(documents):
        retrieved[f"retrieval.documents.{i}.document.id"] = f"d{i}"
        retrieved[f"retrieval.documents.{i}.document.content"] = text(10_000)
    spans = [Span(TRACE_ID, f"{1:016x}", None, "chain", 0, 10**12,
                  attributes={"openinference.span.kind": "CHAIN", "input.value": "q?"}),
             Span(TRACE_ID, f"{2:016x}", f"{1:016x}", "retrieve", 1, 2, attributes=retrieved)]
    sources = "".join(f"Source {n}:\n{text(300)}\n" for n in range(1, 10))
    for c in range(calls):
        spans.append(Span(TRACE_ID, f"{c + 3:016x}", f"{1:016x}", "llm", 10 + c, 20 + c, attributes={
            "openinference.span.kind": "LLM", "input.value": sources + text(prompt),
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": sources + text(prompt),
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": " ".join(f"Claim [{n}]." for n in range(1, 10))}))
    return Trace(TRACE_ID, tuple(spans))


def main() -> None:
    rng = random.Random(0)
    for documents, calls, prompt in CASES:
        sample = trace(documents, calls, prompt, rng)
        start = time.process_time()
        extract(sample)
        print(f"{documents:4} documents, {calls:4} model calls, prompts of {prompt:7,} characters: "
              f"{(time.process_time() - start) * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
