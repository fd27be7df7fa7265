"""`ragmon serve`'s command line: its flags (each also a RAGMON_* variable, see ragmon.cli) and the
settings they make, checked before anything starts.

Apart from ragmon.service, which runs the sidecar, so that what a command line means can be read, and
tested, without the machinery that acts on it.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ragmon import llm_lane
from ragmon.capture import threshold
from ragmon.errors import InputError
from ragmon.exporter import (
    MAX_LABEL_BYTES,
    MAX_PIPELINES,
    OTHER_PIPELINE,
    RESERVED_PIPELINES,
    UNKNOWN_PIPELINE,
    fits_as_label,
    pipeline_label_of,
)
from ragmon.judges import lexical
from ragmon.options import (
    FROM_ENVIRONMENT,
    TYPED,
    Flag,
    MiB,
    byte_size,
    duration,
    flag_of,
    fraction,
    given_file,
    given_path,
    listen_address,
    positive_duration,
    positive_int,
    shown_address,
)
from ragmon.otlp.decode import MAX_VALUES
from ragmon.setting_files import read_setting_file

log = logging.getLogger("ragmon.serve_config")

MAX_WORKERS = 64
"""Each worker is a process holding the judge's caches (up to ~80 MiB with 200-word passages), so a
mistyped `--workers 1000` would start a thousand processes and take the node's memory with it; one
sidecar scores one service's traffic at thousands a second per worker."""


def workers(text: str) -> int:
    """`--workers`: 1 to MAX_WORKERS."""
    value = positive_int(text)
    if value > MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"at most {MAX_WORKERS} worker processes: {text}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    listen = parser.add_argument_group("listeners")
    listen.add_argument("--http-listen", type=listen_address, default="127.0.0.1:4318",
                        help="OTLP/HTTP receiver, host:port or off (default %(default)s)")
    listen.add_argument("--grpc-listen", type=listen_address, default="127.0.0.1:4317",
                        help="OTLP/gRPC receiver, host:port or off (default %(default)s)")
    listen.add_argument("--metrics-listen", type=listen_address, default="0.0.0.0:9464",
                        help="/metrics, /healthz and /readyz, host:port or off (default %(default)s)")
    listen.add_argument("--max-body", type=byte_size, default=16 * MiB,
                        help="largest OTLP request, also after decompression (default 16MiB)")
    listen.add_argument("--max-values", type=positive_int, default=MAX_VALUES,
                        help="most values one OTLP request may hold, counted before it is decoded: "
                             "every message (span, event, link, attribute, value...) and span id is one, "
                             "any other field a quarter (over JSON: every object, array and value after "
                             "a comma); at the default, a request takes ~100 MiB and ~2 s to decode at "
                             "most (default %(default)s)")
    listen.add_argument("--token-file", type=given_path,
                        help="require 'Authorization: Bearer <token>' on OTLP; the token is also read from "
                             "RAGMON_TOKEN")
    traces = parser.add_argument_group("trace assembly")
    traces.add_argument("--quiet", type=duration, default="2s",
                        help="decide a trace this long after its last span once its root ended (default 2s)")
    traces.add_argument("--decision-wait", type=duration, default="30s",
                        help="decide a trace at the latest this long after its first span (default 30s)")
    traces.add_argument("--max-traces", type=positive_int, default=20_000,
                        help="traces buffered at once: a request that would take the buffer past 90%% "
                             "of it gets 503, one of more traces 413 (default 20000)")
    traces.add_argument("--max-spans-per-trace", type=positive_int, default=1_000,
                        help="spans kept per trace; the rest are counted and dropped (default 1000)")
    traces.add_argument("--max-buffer", type=byte_size, default=256 * MiB,
                        help="memory the traces may hold, decoded, from their first span until scored; "
                             "a request that would take them past 90%% gets 503, one larger than all of it "
                             "413 (default 256MiB)")
    scoring = parser.add_argument_group("scoring")
    scoring.add_argument("--sample-rate", type=fraction, default=1.0,
                         help="share of the RAG traces ragmon receives (whatever the app's head sampler "
                              "kept) that the lexical judge scores (default 1.0)")
    scoring.add_argument("--workers", type=workers, default=1,
                         help=f"lexical judge worker processes, 1 to {MAX_WORKERS} (default 1)")
    scoring.add_argument("--queue-size", type=positive_int, default=1_000,
                         help="examples waiting for a worker before receivers push back (default 1000)")
    scoring.add_argument("--k", type=positive_int, default=5, help="cut-off of retrieval metrics (default 5)")
    lexical.add_cli_arguments(scoring)
    export = parser.add_argument_group("metrics")
    export.add_argument("--window", type=positive_duration, default="5m",
                        help="window of the groundedness/hallucination gauges (default 5m)")
    export.add_argument("--max-pipelines", type=positive_int,
                        help="distinct pipeline label values, given to names in order of arrival; later "
                             f"ones are exported as 'other' (default {MAX_PIPELINES}; not with --pipelines)")
    export.add_argument("--pipelines", type=pipeline_names, action="append", metavar="NAME[,NAME...]",
                        help="label exactly these pipelines, everything else as 'other' (repeatable). "
                             "Unlike --max-pipelines, the labels are the same in every replica and "
                             "across restarts, and exist at 0 from the start, so dashboards and alerts "
                             "can name a pipeline. Cannot be combined with --max-pipelines")
    capture = parser.add_argument_group("capture of low-scoring examples (stores production text)")
    capture.add_argument("--capture", type=given_file, metavar="FILE",
                         help="append poorly grounded examples to FILE as ragmon JSONL, ready for "
                              "`ragmon replay` (default: off)")
    capture.add_argument("--capture-below", type=threshold, default=0.5, metavar="G",
                         help="capture when groundedness < G: 1 takes every answer with an unsupported "
                              "sentence, those the hallucination alerts count; 'all' every scored example "
                              "(default 0.5: answers more than half unsupported)")
    capture.add_argument("--capture-max-bytes", type=byte_size, default=64 * MiB, metavar="SIZE",
                         help="rename FILE to FILE.1 before it grows past SIZE (default 64MiB)")
    ops = parser.add_argument_group("operation")
    ops.add_argument("--drain-seconds", type=duration, default="10s",
                     help="on SIGTERM, time to score what is buffered before exiting (default 10s)")
    ops.add_argument("--final-scrape-wait", type=duration, default="0s", metavar="DURATION",
                     help="after the drain, keep /metrics up until it is scraped once more, for at most "
                          "this long, so the outcomes the drain decided reach Prometheus (default 0s: "
                          "exit at once; give about one scrape interval, within the pod's grace period)")
    ops.add_argument("--log-format", choices=("json", "text"), default="text", help="default %(default)s")
    ops.add_argument("--log-level", choices=("debug", "info", "warning", "error"), default="info",
                     help="default %(default)s")
    llm_lane.add_arguments(parser)
    parser.set_defaults(_logs_variable_warnings=True)  # as --log-format lines, by `ragmon.service.run`


@dataclass(frozen=True, slots=True)
class ServeConfig:
    http_listen: tuple[str, int] | None = ("127.0.0.1", 4318)
    grpc_listen: tuple[str, int] | None = ("127.0.0.1", 4317)
    metrics_listen: tuple[str, int] | None = ("0.0.0.0", 9464)
    quiet: float = 2.0
    decision_wait: float = 30.0
    max_traces: int = 20_000
    max_spans_per_trace: int = 1_000
    max_buffer: int = 256 * MiB
    sample_rate: float = 1.0
    workers: int = 1
    queue_size: int = 1_000
    k: int = 5
    lexical_threshold: float = lexical.DEFAULT_THRESHOLD
    window: float = 300.0
    max_pipelines: int = MAX_PIPELINES
    pipelines: tuple[str, ...] | None = None
    """The label allow-list; `max_pipelines` does not apply when it is set."""
    max_body: int = 16 * MiB
    max_values: int = MAX_VALUES
    token: str | None = field(default=None, repr=False)
    drain_seconds: float = 10.0
    final_scrape_wait: float = 0.0
    """After the drain, how long /metrics may wait for one more scrape (`Sidecar.stop`)."""
    capture: Path | None = None
    capture_below: float = 0.5
    capture_max_bytes: int = 64 * MiB
    variables: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)
    """The RAGMON_* variable each setting's value came from, by long option: the image and the manifests set
    the listeners that way, so an error found once the sidecar runs (a port taken) names what the user set."""
    typed: frozenset[str] | None = field(default=None, repr=False, compare=False)
    """The long option of each flag the command line gave (ragmon.options.TYPED), or None for a config built
    in code, whose values off their defaults are the ones chosen (`chose`)."""

    @property
    def transports(self) -> tuple[str, ...]:
        """The OTLP receivers that listen, as `ragmon_spans_received_total` labels them: only they get
        series (ragmon.exporter.Exporter)."""
        listening = (("http", self.http_listen), ("grpc", self.grpc_listen))
        return tuple(transport for transport, address in listening if address is not None)

    def flag(self, option: str) -> Flag:
        """`option` as an error names it (`ragmon.options.Flag`)."""
        return Flag(option, self.variables.get(option))

    def chose(self, option: str) -> bool:
        """Whether the user chose `option`'s setting: typed it, at any value (`--capture-below 0.5`, its
        default, too: a value does not tell a flag typed from one left out), rather than leaving it to its
        default or to a RAGMON_* variable, a default for every replica (some capturing, some not). In code,
        a value off its default: the constructor is given only what its caller chose."""
        if self.typed is not None:
            return option in self.typed
        name = option.removeprefix("--").replace("-", "_")
        return bool(getattr(self, name) != getattr(type(self)(), name))

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> ServeConfig:
        if args.http_listen is None and args.grpc_listen is None:
            # It started, and received nothing, answering /readyz 200 all the while.
            raise InputError(f"{flag_of(args, '--http-listen')} and {flag_of(args, '--grpc-listen')} are "
                             "both off: the sidecar would receive no trace; leave one on")
        _check_listeners_apart(args)
        if args.max_buffer < args.max_body:
            # Below one request's worth, a request the receivers take whole may be one the buffer never
            # holds: `offer` refuses it for good (413, too_large) or the assembler drops its spans
            # (too_many_bytes). Decoded spans take more than their bytes on the wire, so no ratio here
            # makes every such request fit; `offer` sees to the rest.
            buffer = flag_of(args, "--max-buffer").given(f"{args.max_buffer} bytes")
            body = flag_of(args, "--max-body").given(f"{args.max_body} bytes")
            raise InputError(f"{buffer} is under {body}: the buffer must hold at least one request's spans")
        return cls(
            http_listen=args.http_listen, grpc_listen=args.grpc_listen, metrics_listen=args.metrics_listen,
            quiet=args.quiet, decision_wait=args.decision_wait, max_traces=args.max_traces,
            max_spans_per_trace=args.max_spans_per_trace, max_buffer=args.max_buffer,
            sample_rate=args.sample_rate,
            workers=args.workers, queue_size=args.queue_size, k=args.k,
            lexical_threshold=args.lexical_threshold, window=args.window,
            max_pipelines=MAX_PIPELINES if args.max_pipelines is None else args.max_pipelines,
            pipelines=allow_list(args.pipelines, args.max_pipelines), max_body=args.max_body,
            max_values=args.max_values,
            token=read_token(args.token_file, os.environ.get("RAGMON_TOKEN"), flag_of(args, "--token-file")),
            drain_seconds=args.drain_seconds, final_scrape_wait=args.final_scrape_wait, capture=args.capture,
            capture_below=args.capture_below,
            capture_max_bytes=args.capture_max_bytes, variables=getattr(args, FROM_ENVIRONMENT, {}),
            typed=getattr(args, TYPED, frozenset()),
        )


_LISTENERS = ("--http-listen", "--grpc-listen", "--metrics-listen")


def _check_listeners_apart(args: argparse.Namespace) -> None:
    """Refuse two listeners on one port: the second failed to bind once the first held it, after the
    workers had started, and the error blamed "another process (a second ragmon serve?)" for ragmon's
    own listener (RAGMON_METRICS_LISTEN set to the OTLP port, say)."""
    bound = [(option, address) for option in _LISTENERS
             if (address := getattr(args, option[2:].replace("-", "_"))) is not None]
    for at, (first, (first_host, port)) in enumerate(bound):
        for second, (second_host, other_port) in bound[at + 1:]:
            if port == other_port != 0 and _overlap(first_host, second_host):
                raise InputError(
                    f"{flag_of(args, first).given(shown_address(first_host, port))} and "
                    f"{flag_of(args, second).given(shown_address(second_host, port))} take the same port: "
                    "the second could not listen; give each listener its own port")


def _overlap(host: str, other: str) -> bool:
    """Whether two hosts bound on one port collide for certain: the same host, or IPv4's wildcard and an
    IPv4 address. Names and IPv6 are left to the bind, which knows what they resolve to and whether
    `::` takes IPv4 too."""
    if host == other:
        return True
    wildcard = "0.0.0.0"
    return (host == wildcard and _is_ipv4(other)) or (other == wildcard and _is_ipv4(host))


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def pipeline_names(text: str) -> list[str]:
    """One `--pipelines` value: names separated by commas. A name that is no label as it stands would
    match nothing, so the error gives the label to list in its place (what /metrics shows for that name):
    a reserved one too, whose service the error had left to be found on /metrics."""
    names = [name.strip() for name in text.split(",")]
    for position, name in enumerate(names, 1):
        if not name:
            raise argparse.ArgumentTypeError(f"pipeline name {position} of {text!r} is empty")
        if name in RESERVED_PIPELINES:
            raise argparse.ArgumentTypeError(
                f"{name!r} is a reserved label ({OTHER_PIPELINE!r}: every unlisted pipeline, "
                f"{UNKNOWN_PIPELINE!r}: traces without a name); a pipeline named {name!r} is exported as "
                f"{pipeline_label_of(name)!r}: list that label instead")
        if not fits_as_label(name):
            label = pipeline_label_of(name)
            raise argparse.ArgumentTypeError(
                f"pipeline name {position} is over {MAX_LABEL_BYTES} bytes of UTF-8 or has control or "
                f"invisible characters, so ragmon exports it as {label!r}: list that label instead")
    return names


def allow_list(values: list[list[str]] | None, max_pipelines: int | None) -> tuple[str, ...] | None:
    """The names of every `--pipelines` (or RAGMON_PIPELINES), in order, once each.

    With both flags, one would silently lose: the allow-list makes a cap meaningless, and a cap set
    somewhere (an environment variable in a chart) would not be doing what its author expects."""
    if values is None:
        return None
    if max_pipelines is not None:
        raise InputError("--pipelines and --max-pipelines cannot be combined (set either, as a flag or as "
                         "RAGMON_PIPELINES / RAGMON_MAX_PIPELINES): an allow-list has no cap")
    names = tuple(dict.fromkeys(name for value in values for name in value))
    if not names:
        raise InputError("--pipelines (RAGMON_PIPELINES) names no pipeline")
    return names


TOKEN_FILE = Flag("--token-file")
"""--token-file given on the command line: how an error names it when no variable set it."""


def read_token(path: Path | None, from_env: str | None, flag: Flag = TOKEN_FILE) -> str | None:
    """The token file wins over RAGMON_TOKEN; an empty token is a mistake, not "no auth".

    An error about the file names `flag`, the variable first where the path came from one: a manifest sets
    RAGMON_TOKEN_FILE, and "cannot read the token file" named no setting to change."""
    if path is not None:
        where = f"the token file ({flag.named})"
        try:
            token = read_setting_file(path).strip()
        except (OSError, ValueError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else str(exc)
            raise InputError(f"cannot read {where}: {why}", source=str(path)) from None
        if not token:
            raise InputError(f"{where} is empty", source=str(path))
        _sendable(token, where, str(path))
        _warn_if_overridden(token, path, from_env)
        return token
    if from_env is not None:
        if not from_env.strip():
            raise InputError("RAGMON_TOKEN is set but empty")
        _sendable(from_env.strip(), "RAGMON_TOKEN", None)
        return from_env.strip()
    return None


def _warn_if_overridden(token: str, path: Path, from_env: str | None) -> None:
    """A RAGMON_TOKEN left from before the token file was mounted is another token the file silently
    replaced: every sender still given it gets 401, with nothing at start to say why. Neither is shown."""
    if from_env is not None and from_env.strip() and from_env.strip() != token:
        log.warning(f"RAGMON_TOKEN is set, to another token than the token file {path} holds, and ignored: "
                    "the file's token is required, so a sender given RAGMON_TOKEN's gets 401 (set the token "
                    "in one place)")


def _sendable(token: str, where: str, source: str | None) -> None:
    """A token no sender can put in a header (a line break of a two-line file, a space, a non-ASCII
    character: HTTP and gRPC metadata carry visible ASCII) would refuse every sender with 401 and nothing
    at start to say why."""
    for at, char in enumerate(token):
        if not "!" <= char <= "~":
            kind = ("a line break" if char in "\r\n" else "a space" if char.isspace()
                    else "a control character" if char < " " or char == "\x7f" else "a non-ASCII character")
            raise InputError(f"{where} holds {kind} at character {at + 1}, which no sender can put in an "
                             "Authorization header: a token is one word of visible ASCII", source=source)
