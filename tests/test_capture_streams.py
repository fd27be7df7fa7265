"""`ragmon serve --capture PIPE` whose reader is late, stuck or gone: the sidecar starts, serves and stops
all the same, and every line it could not write is counted and logged.

Real processes throughout: `ragmon serve` as a user runs it, on 127.0.0.1 free ports; a named pipe made
with os.mkfifo and read (or left unread) by this process; traces sent by the OpenTelemetry SDK's own
OTLP exporter. The pipe is shrunk to one page (F_SETPIPE_SZ), so a few lines fill it. Before these
fixes each of these runs hung in the sidecar's open() or write() of the pipe, and only SIGKILL ended it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from polling import wait_metrics
from ports import free_port

from ragmon import instrument
from ragmon.capture import RotatingFile
from ragmon.scrape import Samples, total

PIPE_BYTES = 4096
"""The smallest pipe Linux makes: one page. Every line is longer than 204 bytes (its trace id is in it
twice, 64 bytes, with the question, the document and the answer), so 20 lines never fit."""
LOST = "cannot write the capture file; examples lost"
READER_WAIT = 10
"""Seconds `ragmon serve` waits at start for a process to open the pipe for reading."""
STALL = 2
"""Seconds a reader may take nothing before the lines waiting for it are lost."""


class Serve:
    """A `ragmon serve --capture PIPE` process and the JSON lines it has logged so far, read as they come
    by a thread of their own, so that waiting for a line has a deadline.

    `stderr`: where the sidecar's stderr goes, a pipe of this process's by default; `log`: where this
    process reads it from, when not from that pipe (none for a file: it is read after the run); `stdin`:
    the sidecar's standard input, this process's by default."""

    def __init__(self, pipe: Path, args: list[str], stderr: int = subprocess.PIPE,
                 log: IO[str] | None = None, stdin: int | None = None) -> None:
        self.http, self.metrics = free_port(), free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ragmon.cli", "serve", "--capture", str(pipe), "--capture-below", "all",
             "--http-listen", f"127.0.0.1:{self.http}", "--grpc-listen", "off",
             "--metrics-listen", f"127.0.0.1:{self.metrics}", "--quiet", "50ms", "--workers", "1",
             "--log-format", "json", *args],
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=stderr, text=True,
            env={k: v for k, v in os.environ.items() if not k.startswith(("RAGMON_", "ANTHROPIC_"))})
        self.lines: list[dict[str, Any]] = []
        source = log or self.process.stderr
        self._reader = None if source is None else threading.Thread(target=self._read, args=(source,),
                                                                    daemon=True)
        if self._reader is not None:
            self._reader.start()

    def _read(self, source: Iterable[str]) -> None:
        for line in source:
            self.lines.append(json.loads(line) if line.startswith("{") else {"message": line.rstrip()})

    def wait_for(self, message: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not (found := self.logged(message)):
            assert time.monotonic() < deadline, f"no {message!r} logged within {timeout} s: {self.lines}"
            time.sleep(0.02)
        return found[0]

    def logged(self, message: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("message", "").startswith(message)]

    def stop(self, timeout: float) -> int:
        """SIGTERM, then the exit code; the process must be gone within `timeout` seconds."""
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=timeout)
        if self._reader is not None:
            self._reader.join(timeout=5)
        return code


@contextlib.contextmanager
def serving(pipe: Path, *args: str, ready: bool = True, stderr: int = subprocess.PIPE,
            log: IO[str] | None = None, stdin: int | None = None) -> Iterator[Serve]:
    """The sidecar for the block, ready unless told otherwise; killed on the way out if it is still up."""
    serve = Serve(pipe, list(args), stderr, log, stdin)
    try:
        if ready:
            serve.wait_for("ragmon serve ready", timeout=30)
        yield serve
    finally:
        if serve.process.poll() is None:
            serve.process.kill()
            serve.process.wait()


@contextlib.contextmanager
def opened_to_read(pipe: Path) -> Iterator[int]:
    """The reading end, opened without waiting for a writer, one page deep."""
    descriptor = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(descriptor, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        yield descriptor
    finally:
        os.close(descriptor)


def read_lines(descriptor: int, count: int, timeout: float = 10) -> list[str]:
    """The trace ids of the next `count` whole lines in the pipe."""
    data, deadline = b"", time.monotonic() + timeout
    while data.count(b"\n") < count:
        assert time.monotonic() < deadline, f"{count} lines did not come within {timeout} s: {data!r}"
        with contextlib.suppress(BlockingIOError):
            data += os.read(descriptor, 1 << 16)
        time.sleep(0.01)
    return [json.loads(line)["id"] for line in data.splitlines()]


def pending(descriptor: int) -> bytes:
    """What the pipe holds now, all of it."""
    data = b""
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(descriptor, 1 << 16):
            data += chunk
    return data


def send(serve: Serve, count: int) -> list[str]:
    """`count` RAG traces through the SDK's OTLP/HTTP exporter; their trace ids."""
    exporter = OTLPSpanExporter(endpoint=f"http://127.0.0.1:{serve.http}/v1/traces", timeout=10)
    provider = TracerProvider(resource=Resource.create({"service.name": "shop"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    sent = []
    for _ in range(count):
        with instrument.rag_span("How long is the warranty?", tracer_provider=provider) as rag:
            rag.retrieved(["The warranty lasts 2 years from the date of purchase."])
            rag.answered("The warranty lasts 2 years.")
        sent.append(format(rag.span.get_span_context().trace_id, "032x"))
    provider.shutdown()
    return sent


def metrics(serve: Serve, ready: Any, timeout: float = 15) -> Samples:
    return asyncio.run(wait_metrics(serve.metrics, ready, timeout=timeout))


def captured(samples: Samples, outcome: str) -> float:
    return total(samples, "ragmon_captured_total", outcome=outcome)


def accounted(count: int) -> Any:
    """Every one of `count` examples scored and written or lost."""
    return lambda s: (total(s, "ragmon_traces_total", outcome="scored") == count
                      and captured(s, "written") + captured(s, "error") == count)


@pytest.fixture
def pipe(tmp_path: Path) -> Path:
    path = tmp_path / "capture.pipe"
    os.mkfifo(path)
    return path


def test_a_pipe_nobody_reads_is_waited_for_then_refused(pipe: Path) -> None:
    # Before: open() waited for a reader for ever, saying nothing.
    with serving(pipe, ready=False) as serve:
        waiting = serve.wait_for("waiting for a process to open the capture pipe for reading", timeout=20)
        assert (waiting["path"], waiting["wait_seconds"]) == (str(pipe), READER_WAIT)
        code = serve.process.wait(timeout=READER_WAIT + 10)
        refused = serve.wait_for(f"{pipe}: no process reads", timeout=5)
    assert code == 2
    assert refused["level"] == "error"
    assert refused["message"] == (
        f"{pipe}: no process reads the capture file (--capture), a named pipe (waited "
        "10 s for one): start its reader first; ragmon only writes it")


def test_a_sigterm_while_a_pipe_s_reader_is_waited_for_stops_at_once_and_exits_0(pipe: Path) -> None:
    # Before: the signal was held until the 10 s wait ran out, and the stop was reported as a start-up
    # error, exit 2: a pod deleted before its log shipper came up took 10 s and logged an error.
    with serving(pipe, ready=False) as serve:
        serve.wait_for("waiting for a process to open the capture pipe for reading", timeout=20)
        began = time.monotonic()
        code = serve.stop(timeout=READER_WAIT + 10)
        assert time.monotonic() - began < 3
    assert code == 0
    assert serve.logged(f"{pipe}: stopped while waiting for a process to read the capture file (--capture), "
                        "a named pipe")


def test_a_reader_that_comes_a_moment_after_the_sidecar_gets_its_lines(pipe: Path) -> None:
    # A log shipper started beside the sidecar in its pod opens the pipe a second later.
    with serving(pipe, ready=False) as serve:
        serve.wait_for("waiting for a process to open the capture pipe for reading", timeout=20)
        time.sleep(1)
        with opened_to_read(pipe) as reader:
            serve.wait_for("ragmon serve ready", timeout=30)
            sent = send(serve, 1)
            assert read_lines(reader, 1) == sent
            assert serve.stop(timeout=20) == 0
    assert serve.logged("stopped")


def test_a_reader_that_stops_reading_costs_the_lines_it_left_not_the_sidecar(pipe: Path) -> None:
    # Before: the writer thread waited on the full pipe for ever; the counts stopped (written + error
    # never reached 20) and nothing was logged.
    with opened_to_read(pipe) as reader, serving(pipe) as serve:
        sent = send(serve, 20)
        samples = metrics(serve, accounted(20))
        written = int(captured(samples, "written"))
        assert captured(samples, "error") == 20 - written >= 1
        (lost,) = serve.logged(LOST)
        assert lost["path"] == str(pipe)
        assert lost["error"] == f"[Errno 11] the reader of the stream took nothing for 2 s: '{pipe}'"
        assert 1 <= lost["count"] <= 20 - written

        more = send(serve, 3)                  # the reader still stuck: scored, and lost at once
        samples = metrics(serve, accounted(23), timeout=STALL + 10)
        assert captured(samples, "written") == written

        taken = [json.loads(line)["id"] for line in pending(reader).splitlines()]
        assert len(taken) == written and set(taken) <= set(sent)   # whole lines, each counted written

        last = send(serve, 1)                  # reading again: lines come again
        assert read_lines(reader, 1) == last
        samples = metrics(serve, accounted(24))
        assert captured(samples, "written") == written + 1
        assert serve.stop(timeout=20) == 0
    assert not set(more) & set(taken)
    assert serve.logged("stopped")


def test_a_stop_while_the_pipe_is_full_ends_within_the_bound_and_says_what_was_lost(pipe: Path) -> None:
    # Before: SIGTERM logged "draining", then waited for ever in the capture's close; no "stopped" line.
    with opened_to_read(pipe) as reader, serving(pipe) as serve:
        sent = send(serve, 20)
        metrics(serve, lambda s: total(s, "ragmon_traces_total", outcome="scored") == 20)
        began = time.monotonic()
        assert serve.stop(timeout=20) == 0
        stopped_in = time.monotonic() - began
        taken = [json.loads(line)["id"] for line in pending(reader).splitlines()]
    assert stopped_in < 10                     # the drain has nothing left; the pipe, 2 s at most
    assert serve.logged("stopped")
    assert len(taken) < 20 and set(taken) <= set(sent)
    assert sum(line["count"] for line in serve.logged(LOST)) == 20 - len(taken)


def test_a_reader_that_goes_away_is_counted_and_one_that_comes_back_gets_lines(pipe: Path) -> None:
    # Before: the first line after the reader left failed (EPIPE), and the next open() of the pipe waited
    # for a reader for ever: every later example neither written nor counted.
    with serving(pipe, ready=False) as serve:
        with opened_to_read(pipe) as first_reader:
            serve.wait_for("ragmon serve ready", timeout=30)
            first = send(serve, 1)
            assert read_lines(first_reader, 1) == first
        send(serve, 1)                          # the pipe has no reader: EPIPE on the open handle
        metrics(serve, lambda s: captured(s, "error") == 1)
        send(serve, 1)                          # and none to open it again for
        metrics(serve, lambda s: captured(s, "error") == 2)
        errors = [line["error"] for line in serve.logged(LOST)]
        assert errors == ["[Errno 32] Broken pipe", f"[Errno 6] no process has the named pipe open for "
                                                    f"reading: '{pipe}'"]
        with opened_to_read(pipe) as second_reader:
            last = send(serve, 1)
            assert read_lines(second_reader, 1) == last
            samples = metrics(serve, accounted(4))
            assert (captured(samples, "written"), captured(samples, "error")) == (2, 2)
            assert serve.stop(timeout=20) == 0
    assert serve.logged("stopped")


# A line longer than the pipe holds is written in part; its reader then takes nothing past the stall
# bound. The next line is written after a newline, so the reader sees the part as a line of its own.
TORN_LINE = """
import fcntl, os, sys
from pathlib import Path
from ragmon.capture import RotatingFile
pipe = Path(sys.argv[1])
reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(reader, fcntl.F_SETPIPE_SZ, 4096)
file = RotatingFile(pipe, 1 << 20)
done, error = file.write([b"a" * 5999 + b"\\n"])
print(len(done), type(error).__name__)
print(os.read(reader, 1 << 16).count(b"a"))
done, error = file.write([b"b" * 10 + b"\\n"])
print(len(done), error)
print(os.read(reader, 1 << 16))
"""


def test_a_line_cut_short_in_a_pipe_is_ended_before_the_next(pipe: Path) -> None:
    run = subprocess.run([sys.executable, "-c", TORN_LINE, str(pipe)],
                         capture_output=True, text=True, timeout=STALL + 20, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["0 _Stalled", "4096", "1 None", "b'\\nbbbbbbbbbb\\n'"]


def test_a_reader_taking_a_kib_a_second_gets_every_line(pipe: Path) -> None:
    # A shell `while read -r line` loop: it reads all the time, a little at once. Linux says a pipe has room
    # only when a whole page is free, which this reader takes 4 s to empty. Before: "took nothing for 2 s",
    # 8 of the 12 lines written, the rest lost.
    lines = [b'{"id": "%02d", "pad": "%s"}\n' % (n, b"x" * 476) for n in range(12)]   # 500 bytes each
    with opened_to_read(pipe) as reader:
        os.set_blocking(reader, True)
        taken = bytearray()

        def read_slowly() -> None:
            while chunk := os.read(reader, 256):
                taken.extend(chunk)
                time.sleep(0.25)

        file = RotatingFile(pipe, 1 << 20)
        file.open()                              # first: a pipe that no writer has open is at its end
        slow = threading.Thread(target=read_slowly, daemon=True)
        slow.start()
        done, error = file.write(lines)          # 8 lines fill the page; the rest wait for it, 4 s
        file.close()
        slow.join(timeout=20)
    assert (done, error) == ([0] * 12, None)
    assert bytes(taken) == b"".join(lines)


def test_a_line_cut_short_at_the_stop_is_ended_so_the_next_run_starts_a_line(pipe: Path) -> None:
    # The reader (a log shipper) takes nothing during the stop and outlives a restart. Before: the stop
    # left the line unended and the restarted sidecar's first line ran on from it, both lost to a reader.
    line = b'{"id": "a", "x": "' + b"a" * 6000 + b'"}\n'
    with opened_to_read(pipe) as reader:
        first = RotatingFile(pipe, 1 << 20)
        first.give_up(0)                          # the stop: the reader is behind, waited for no longer
        done, error = first.write([line])
        first.close()
        taken = pending(reader)                   # read again while the sidecar restarts
        second = RotatingFile(pipe, 1 << 20)      # the restarted sidecar
        assert second.write([b'{"id": "b"}\n']) == ([0], None)
        second.close()
        taken += pending(reader)
    assert (done, type(error).__name__) == ([], "_Stalled")
    assert taken.split(b"\n") == [line[:PIPE_BYTES], b'{"id": "b"}', b""]   # no blank line either


@pytest.mark.parametrize("mode", ["a", "w"], ids=["2>>serve.log", "2>serve.log"])
def test_stderr_in_a_log_file_is_a_stream_not_a_capture_file(tmp_path: Path, mode: str) -> None:
    # `ragmon serve 2>>serve.log --capture /dev/stderr` (here a link of the same kind, /proc/self/fd/2: the
    # real /dev is not touched). fstat says regular. Before: the line already in the log was counted as a
    # broken capture line, FILE.lock was made beside serve.log, and the second line rotated the link away
    # to FILE.1, the lines after it going to a new regular file in its place.
    # `2>serve.log` (systemd's `StandardError=file:`) opens it without O_APPEND; here a line of the script
    # that starts the sidecar comes first. Before: capture lines were appended past the logger's offset,
    # and its next lines overwrote them: one of three records lost, the log cut into pieces of lines.
    log_file, link = tmp_path / "serve.log", tmp_path / "stderr"
    link.symlink_to("/proc/self/fd/2")
    with log_file.open(mode) as log:
        log.write("a line before the sidecar's\n")
        log.flush()
        with serving(link, "--capture-max-bytes", "1500", ready=False, stderr=log.fileno()) as serve:
            deadline = time.monotonic() + 30
            while "ragmon serve ready" not in log_file.read_text():
                assert time.monotonic() < deadline, log_file.read_text()
                time.sleep(0.05)
            sent = send(serve, 3)                 # lines of about 900 bytes: every second one would rotate
            metrics(serve, accounted(3))
            assert serve.stop(timeout=20) == 0
    first, *rest = log_file.read_text().splitlines()
    assert first == "a line before the sidecar's"
    cut = [line for line in rest if not line.startswith(('{"id": ', '{"time": ')) or not line.endswith("}")]
    assert cut == []                              # no line cut or run on into another
    records = [json.loads(line)["id"] for line in rest if line.startswith('{"id": ')]
    messages = [json.loads(line)["message"] for line in rest if line.startswith('{"time": ')]
    assert records == sent
    assert "ragmon serve ready" in messages and messages[-1] == "stopped"
    assert not [m for m in messages if "no record with an id" in m]
    assert os.readlink(link) == "/proc/self/fd/2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["serve.log", "stderr"]


def test_stderr_a_socket_as_under_systemd_gets_the_lines_and_stays_blocking_for_the_logger(
        tmp_path: Path) -> None:
    # systemd's default StandardError=journal is a socket, which no path opens (ENXIO). Before: exit 2,
    # "cannot read the capture file (--capture): No such device or address".
    link = tmp_path / "stderr"
    link.symlink_to("/proc/self/fd/2")
    ours, theirs = socket.socketpair()
    with ours, ours.makefile("r") as log, serving(link, ready=False, stderr=theirs.fileno(),
                                                   log=log) as serve:
        theirs.close()                            # the sidecar's alone: its exit ends what is read
        serve.wait_for("ragmon serve ready", timeout=30)
        sent = send(serve, 2)
        metrics(serve, accounted(2))
        flags = (Path(f"/proc/{serve.process.pid}/fdinfo/2").read_text().split("flags:")[1].split()[0])
        assert serve.stop(timeout=20) == 0
    assert [line["id"] for line in serve.lines if "needs_review" in line] == sent
    assert serve.logged("stopped")
    assert int(flags, 8) & os.O_NONBLOCK == 0    # the logger's writes to it still wait, as they always did


def test_standard_input_read_from_a_file_is_refused_at_start(tmp_path: Path) -> None:
    # `ragmon serve --capture /dev/stdin < input.txt` (here a link of the same kind, /proc/self/fd/0).
    # Before: the start passed, and every batch was lost: "cannot write the capture file; examples lost",
    # Bad file descriptor.
    given, link = tmp_path / "input.txt", tmp_path / "stdin"
    given.write_text("x\n")
    link.symlink_to("/proc/self/fd/0")
    with given.open("rb") as stdin, serving(link, ready=False, stdin=stdin.fileno()) as serve:
        refused = serve.wait_for(f"{link}: cannot write the capture file", timeout=30)
        code = serve.stop(timeout=10)
    assert (code, refused["level"]) == (2, "error")
    assert refused["message"] == (
        f"{link}: cannot write the capture file (--capture): it is ragmon's descriptor 0, open for reading "
        "only (as `< FILE` or a pipe's reading end opens it); the capture needs one open for writing")
    assert not serve.logged("ragmon serve ready") and given.read_text() == "x\n"
