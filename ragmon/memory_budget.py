"""The most memory `ragmon serve` can hold with its settings, part by part, against its container's limit.

Every part is bounded by a setting, and docs/deploy.md added them up in a paragraph; the paragraph drifted:
the bounds over gRPC came to ~710 MiB while the shipped sidecar manifest still said 576Mi, and nothing
failed. So the sum is code: `serve` logs it at start and warns when the container's memory limit is under
it (the OOM-kill would come at the worst moment: a burst, with the buffer full), and a test holds every
shipped manifest to it.

The fixed parts are measured, not derived: the process with its libraries and working state, and a
lexical worker with its caches full (the passage cache's 4,096 short passages and 32 MiB of long ones,
the claim caches' 8 MiB): `benchmarks/memory_bound.py` measures the process and its workers under each
kind of traffic, `benchmarks/ingest.py` under a steady load.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragmon.options import MiB, mib
from ragmon.otlp.decode import MAX_VALUES
from ragmon.otlp.grpc import READ_SLOTS, receive_cap
from ragmon.otlp.limits import HELD_BODIES
from ragmon.scoring import WORKER_SHARE
from ragmon.serve_config import ServeConfig

PROCESS = 90 * MiB
"""The sidecar's own process at work: the interpreter, gRPC, protobuf, the asyncio servers (57 MiB idle)."""

WORKER = WORKER_SHARE
"""One lexical worker process with its caches full (27 MiB idle). What it takes beyond that to score an
example (`ragmon.scoring.working_bytes`: a 14 MiB document of wide characters took a worker to 204 MiB)
is counted in --max-buffer while the example is queued or scored, and a trace needing more than all of
--max-buffer is not scored (an `error`, logged). What a worker keeps beyond it afterwards (a 4 MiB
Chinese document left one at 195 MiB) is counted in --max-buffer too, until its pool is replaced."""

HELPERS = 26 * MiB
"""multiprocessing's forkserver, which forks the lexical workers, and its resource tracker: processes of
their own beside the sidecar and its workers, in no other part. Their anonymous memory, measured with a
worker at work (their libraries' pages are the process's, counted there once): 18.5 and 6.3 MiB on Python
3.11, 24.8 in all; 18.4 and 6.8 on 3.12, whose resource tracker holds 0.45 MiB more, 25.2 in all, past the
25 this was (24 until the forkserver preloaded the citation read-out, rules 15, and took 24.07). A worker's
own figure counts the pages it shares with the forkserver; the forkserver's copies of those it wrote to
are here. Measured with the modules' bytecode cached, as pip installs them: compiling them from source
(PYTHONDONTWRITEBYTECODE on a source checkout) leaves the forkserver ~2.2 MiB more on either version."""

TRACE_IDS = 2816
"""Bytes per --max-traces of the trace ids the assembler remembers beside what it buffers (`ragmon.traces`),
rounded up from 4 decided ids each with its first 64 span ids packed (~440 bytes with the dict's entry),
one trace whose spans were all refused (~670 with the name that labels it, kept as its UTF-8 of 128 bytes
at most: as a str, one emoji among them made it ~1,130) and a buffered trace's refused span ids (256): 54
MiB at the default 20,000 (tracemalloc: 43.7 MiB of the first two filled with such traces, before they
kept a name). Left out, the sum had not grown with --max-traces."""

DECODING = 100 * MiB
"""The values one request being decoded may hold at the default `--max-values` (floods of 16 MiB bodies
built by three reviews peaked at 130 MiB, the interpreter included); it scales with `--max-values`."""

SMALL_DECODES = 25 * MiB
"""Requests under 256 KiB are decoded on the event loop, several at once, each within its own bounds."""

CLAUDE_SDK = 60 * MiB
"""The anthropic SDK with httpx and pydantic, imported only when the Claude judge runs (53 MiB measured)."""

GRPC_COPIES = 2
"""gRPC holds a message about twice while it hands it over (25 concurrent reads of 30 MiB: 197 MiB)."""

_UNLIMITED = 1 << 62
"""cgroup v1 writes "no limit" as the largest page-aligned 64-bit value (9223372036854771712)."""


@dataclass(frozen=True)
class Part:
    what: str
    size: int


def worst_case(config: ServeConfig, *, claude: bool = False) -> tuple[Part, ...]:
    """What every bound reached at once holds: an upper bound, not a forecast (a request body is counted
    both as it is read and as its spans join the buffer)."""
    parts = [Part("the process", PROCESS),
             Part("held traces, examples and what workers take to score them (--max-buffer)",
                  config.max_buffer),
             Part(f"{config.workers} lexical worker{'s' if config.workers > 1 else ''} (--workers)",
                  config.workers * WORKER),
             Part("the forkserver and resource tracker that start them", HELPERS),
             Part("trace ids remembered (--max-traces)", config.max_traces * TRACE_IDS)]
    if claude:
        parts.append(Part("the Claude judge's SDK", CLAUDE_SDK))
    if config.http_listen is not None or config.grpc_listen is not None:
        parts.append(Part("requests being decoded (--max-values)",
                          DECODING * config.max_values // MAX_VALUES + SMALL_DECODES))
        parts.append(Part(f"request bodies ({HELD_BODIES} x --max-body)", HELD_BODIES * config.max_body))
    if config.grpc_listen is not None:
        parts.append(Part(f"gRPC messages being read ({READ_SLOTS} of up to 2 x --max-body)",
                          READ_SLOTS * GRPC_COPIES * receive_cap(config.max_body)))
    return tuple(parts)


def total(parts: tuple[Part, ...]) -> int:
    return sum(part.size for part in parts)


def described(parts: tuple[Part, ...]) -> str:
    return ", ".join(f"{part.what} {mib(part.size)}" for part in parts)


def container_limit(cgroup: Path = Path("/sys/fs/cgroup")) -> int | None:
    """The memory limit of this process's container, or None when it has none or none can be read.

    A container sees its own cgroup at the mount's root: `memory.max` under cgroup v2 (Kubernetes since
    1.25 on current distributions), `memory/memory.limit_in_bytes` under v1."""
    for path in (cgroup / "memory.max", cgroup / "memory" / "memory.limit_in_bytes"):
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text.isdigit() and int(text) < _UNLIMITED:
            return int(text)
        return None
    return None


def advice(parts: tuple[Part, ...], limit: int | None) -> str | None:
    """The warning for a limit under the worst case, naming the parts and what to change; None if it fits."""
    need = total(parts)
    if limit is None or limit >= need:
        return None
    return (f"the container's memory limit ({mib(limit)}) is under what ragmon may hold with these settings "
            f"({mib(need)}: {described(parts)}): under a burst it would be OOM-killed; raise the limit to "
            f"{mib(need)} or more, or lower --max-buffer, --max-body or --workers "
            "(docs/deploy.md, Resources)")
