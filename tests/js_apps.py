"""What OpenTelemetry JS's exporters sent for one RAG request of a Node.js app, captured byte for byte
(tests/fixtures/js: capture.mjs says how to regenerate them), so that the tests replay a TypeScript app's
traces without npm. The app's corpus, question and answers are these."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from pathlib import Path

from ragmon.model import Context
from ragmon.otlp.decode import decode_json, decode_protobuf
from ragmon.traces import Span, Trace

FIXTURES = Path(__file__).parent / "fixtures" / "js"
CORPUS = {
    "kb-refunds": "Refunds are accepted within 30 days of delivery.",
    "kb-shipping": "Standard shipping takes 5 business days.",
    "kb-support": "Support is available by chat around the clock.",
}
CONTEXTS = tuple(Context(doc_id, text, None) for doc_id, text in CORPUS.items())
"""The documents the app retrieved, in its order, as LangChain.js records them (no score)."""
QUESTION = "How long do I have to ask for a refund?"
GROUNDED = "You can ask for a refund within 30 days of delivery [1]."
MADE_UP = "You can ask for a refund within 90 days of purchase [1]. Refunds are paid in gold coins."
STRUCTURED = "You can ask for a refund within 30 days of delivery. Refunds are paid in gold coins."
"""The answer field of the object the AI SDK's generateObject and streamObject gave (app.mjs's OBJECT, which
cites its source as `"sources": [1]` and adds `"confidence": 0.8`): one sentence grounded, one made up."""
ANSWERS = {"langchain-proto-gzip": GROUNDED, "langchain-json": MADE_UP, "langchain-grpc-gzip": GROUNDED,
           "langchain-document-id": GROUNDED, "aisdk-proto": MADE_UP, "genai-json": MADE_UP,
           "aisdk-object": STRUCTURED, "aisdk-stream-object": STRUCTURED}
"""Each capture's name (capture.mjs's scenarios), and the answer the app gave (of an object, the text
judged)."""
GROUNDEDNESS = {GROUNDED: 1.0, MADE_UP: 0.0, STRUCTURED: 0.5}
"""Each answer's groundedness from the lexical judge: its sentences supported, of its sentences."""


@dataclass(frozen=True)
class Request:
    body: bytes
    headers: dict[str, str]
    """Over HTTP: content-type, content-encoding (when compressed), user-agent and the path; over gRPC:
    user-agent and grpc-encoding (when compressed)."""

    def spans(self) -> tuple[Span, ...]:
        """The body through ragmon's decoder for its content type, every span taken."""
        body = gzip.decompress(self.body) if self.headers.get("content-encoding") == "gzip" else self.body
        decode = decode_json if self.headers.get("content-type") == "application/json" else decode_protobuf
        batch = decode(body)
        assert batch.rejected == 0, batch.errors
        return batch.spans


@dataclass(frozen=True)
class Capture:
    name: str
    transport: str
    """"http" or "grpc"."""
    service: str
    """The app's service.name: its pipeline."""
    requests: tuple[Request, ...]

    def trace(self) -> Trace:
        """The one trace the requests carry."""
        spans = tuple(span for request in self.requests for span in request.spans())
        assert len({span.trace_id for span in spans}) == 1
        return Trace(spans[0].trace_id, spans)


def capture(name: str) -> Capture:
    index = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    requests = tuple(Request((FIXTURES / r["body"]).read_bytes(), r["headers"]) for r in index["requests"])
    return Capture(name, index["transport"], index["service"], requests)


def captures() -> list[Capture]:
    return [capture(name) for name in ANSWERS]
