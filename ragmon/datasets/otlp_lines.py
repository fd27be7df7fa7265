"""Format 4, OTLP/JSON lines: recorded spans read into examples the way the sidecar reads live traffic.

The one format with no record per example: a trace may be spread over many lines and files, and is whole
only once every file has been read.

The reading itself (ragmon.datasets.otlp_assembly) is imported at a first OTLP line: it brings the OTLP
decoder (protobuf's generated classes), the Assembler and span extraction, ~0.13 s of CPU of the ~0.45 a
`ragmon replay` or `ragmon calibrate` took, and most runs read no OTLP file.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ragmon.errors import RagmonError

if TYPE_CHECKING:
    from ragmon.datasets.locate import LineOf
    from ragmon.datasets.otlp_assembly import Assembly
    from ragmon.model import Example

OTLP_MARKERS = ("resourceSpans", "resource_spans")
"""An ExportTraceServiceRequest's one field, under either name proto3's JSON mapping has parsers accept:
the lowerCamelCase one the Collector writes and the proto field name `MessageToJson(...,
preserving_proto_field_name=True)` writes, both of which the OTLP/JSON decoder reads. Recognised by the
first alone, a file of the second was read as ragmon records, its first line refused as one with no id."""
NOT_RAG = "not_rag"
"""The reason recorded in `skipped` for a recorded trace with no retrieval and no generation."""
Skipped = list[tuple[str, str]]
"""(trace id, reason): NOT_RAG for a trace that is no example; any other reason is a trace scored with
requests of it left unscored (`ragmon.semconv.extract.extract_noted`), which the caller should say."""


def is_otlp(obj: Any) -> bool:
    return isinstance(obj, dict) and any(marker in obj for marker in OTLP_MARKERS)


class Recording:
    """The OTLP/JSON lines of a run, from every file that holds them, in one assembly (`Assembly`), made at
    the first such file."""

    def __init__(self) -> None:
        self._assembly: Assembly | None = None

    def read(self, lines: Iterable[tuple[int, bytes]], source: str) -> None:
        """Every span of one file's lines into the assembly; a trace is decided only once every file has
        been read (`examples`)."""
        if self._assembly is None:
            self._assembly = _assembly()
        self._assembly.read(lines, source)

    def examples(self, skipped: Skipped) -> Iterator[tuple[Example, str, LineOf]]:
        """Every trace of the files read, extracted, each example with the file and line of its first
        span; none if no OTLP file was read."""
        return iter(()) if self._assembly is None else self._assembly.examples(skipped)


def _assembly() -> Assembly:
    try:
        from ragmon.datasets.otlp_assembly import Assembly
    except ImportError as exc:
        # As the CLI says of a command it cannot load: a broken install is a run that could not complete.
        raise RagmonError(f"cannot read recorded traces: {exc} (a dependency of ragmon is missing: reinstall "
                          "it with its dependencies)") from exc
    return Assembly()
