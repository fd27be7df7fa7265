"""`ragmon demo --all` (what `make demo` runs): the whole loop on loopback, in well under two minutes.

1. Start `ragmon serve` as a subprocess on free loopback ports, with a short --quiet and --window.
2. Run the three builds of the policy assistant (healthy, degraded retrieval, hallucinating); after
   each, read /metrics back and print groundedness and hallucination from the counters' deltas (exact
   for the phase) next to the window gauge (what a single-pod dashboard shows).
3. Stop the sidecar with SIGTERM and check it drains and exits 0.
4. Gate the golden sets offline with `ragmon replay`: the hallucinating build fails, the healthy passes.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from ragmon.cli import note, print_out, terminated_on_signal
from ragmon.demo.app import SERVICE_NAME, run_phase
from ragmon.demo.rag import PHASES
from ragmon.errors import RagmonError
from ragmon.scrape import Samples, scrape, total

REQUESTS = 32
WINDOW_SECONDS = 3
GATE = "groundedness=0.85"
STOP_SECONDS = 10
RERUN = ("to re-run it on the healthy build's, from a clone: ragmon replay examples/demo-golden.jsonl "
         f"--gate {GATE}")
"""The tour's golden sets are in a temporary directory, gone when it ends, so the hint names the one shipped
(the healthy build's answers, as tests/demo checks): a `<golden.jsonl>` placeholder left nothing to run."""
STORIES = {
    "healthy": "the right policy is retrieved and quoted",
    "degraded": "half the index is lost: wrong policies, answers 'from memory', refusals",
    "hallucinating": "retrieval is fine, but numbers drift and sentences are invented",
}


def wait_for(what: str, check: Callable[[], bool], timeout: float, checkpoint: Callable[[], None]) -> None:
    """Poll `check`; `checkpoint` (`terminated_on_signal`'s) ends the wait if a SIGTERM's exception was
    lost."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RagmonError(f"gave up waiting for {what} after {timeout:.0f}s")
        checkpoint()
        time.sleep(0.05)


def run_tour() -> int:
    started = time.monotonic()
    failures: list[str] = []
    # SIGTERM (from `timeout`, a CI cancel, a process manager) is raised as Terminated, and the sidecar is
    # killed on the way out like on Ctrl-C, not left running on its ports.
    with terminated_on_signal() as checkpoint, tempfile.TemporaryDirectory(prefix="ragmon-demo-") as tmp:
        work = Path(tmp)
        http_port, metrics_port = _free_port(), _free_port()
        metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        log_path = work / "sidecar.log"
        _say(f"ragmon demo: starting `ragmon serve` (OTLP/HTTP 127.0.0.1:{http_port}, metrics "
             f"127.0.0.1:{metrics_port}, --quiet 200ms, --window {WINDOW_SECONDS}s)")
        with log_path.open("w") as log:
            sidecar = subprocess.Popen(
                [sys.executable, "-m", "ragmon.cli", "serve", "--http-listen", f"127.0.0.1:{http_port}",
                 "--grpc-listen", "off", "--metrics-listen", f"127.0.0.1:{metrics_port}", "--quiet", "200ms",
                 "--decision-wait", "5s", "--window", f"{WINDOW_SECONDS}s", "--log-level", "warning"],
                stdout=log, stderr=subprocess.STDOUT, env=_without_user_settings(), preexec_fn=_heeds_sigterm)
        try:
            wait_for("the sidecar to be ready", lambda: _ready(metrics_port, sidecar), 60, checkpoint)
            _say(f"ready after {time.monotonic() - started:.1f}s\n")
            results = _run_phases(http_port, metrics_url, work, checkpoint)
            sidecar.send_signal(signal.SIGTERM)
            code = sidecar.wait(timeout=60)
        except BaseException:
            _stop(sidecar)
            _show_log(log_path)
            raise
        _say(f"\nSIGTERM -> the sidecar drained and exited with {code}")
        if code != 0:
            failures.append(f"the sidecar exited with {code}")
        if not results["hallucinating"] < results["healthy"]:
            failures.append("online groundedness of the hallucinating build is not below the healthy one")
        _say(f"\noffline gate on the golden set each build answered ({RERUN})")
        for phase, expected in (("hallucinating", 1), ("healthy", 0)):
            failures += _replay(work / f"{phase}.jsonl", phase, expected)
            checkpoint()
    _say(f"\ndemo finished in {time.monotonic() - started:.1f}s")
    for failure in failures:
        note(f"UNEXPECTED: {failure}")
    return 1 if failures else 0


def _run_phases(http_port: int, metrics_url: str, work: Path,
                checkpoint: Callable[[], None]) -> dict[str, float]:
    """Groundedness per phase, from the claim counters' deltas."""
    _say(f"{'phase':<14} {'traces':>6} {'claims':>6}  {'grounded':>8}  {'halluc.':>7}  {'relevance':>9}  "
         f"{'window gauge (n)':>16}")
    results = {phase: _run_one(phase, http_port, metrics_url, work, checkpoint) for phase in PHASES}
    _say("(grounded, halluc.: shares of all the phase's claims, from the claim counters;\n"
         " window gauge: the mean of each answer's groundedness, over the n answers that made a claim)")
    _say(f"(after each phase the window gauge's series disappeared within {WINDOW_SECONDS}s: an empty "
         "window is undefined, not 0)")
    return results


def _run_one(phase: str, http_port: int, metrics_url: str, work: Path,
             checkpoint: Callable[[], None]) -> float:
    before = scrape(metrics_url)
    answers = run_phase(phase, requests=REQUESTS, endpoint=f"http://127.0.0.1:{http_port}",
                        golden=work / f"{phase}.jsonl")
    after = _scrape_until_decided(metrics_url, before, len(answers), checkpoint)

    def delta(name: str, **ls: str) -> float:
        return total(after, name, **ls) - total(before, name, **ls)

    supported = delta("ragmon_claims_total", verdict="supported")
    claims = supported + delta("ragmon_claims_total", verdict="unsupported")
    grounded = supported / claims if claims else float("nan")
    relevance = (delta("ragmon_example_score_sum", metric="answer_relevance")
                 / delta("ragmon_example_score_count", metric="answer_relevance"))
    key = ("ragmon_groundedness_ratio", frozenset({"pipeline": SERVICE_NAME, "judge": "lexical"}.items()))
    window = after.get(key)
    window_n = after.get(("ragmon_window_examples", key[1]), 0)
    shown = "absent" if window is None else f"{window:.3f} ({window_n:.0f})"
    _say(f"{phase:<14} {delta('ragmon_traces_total', outcome='scored'):>6.0f} {claims:>6.0f}  "
         f"{grounded:>8.3f}  {1 - grounded:>7.3f}  {relevance:>9.3f}  {shown:>16}")
    _say(f"{'':<14} {STORIES[phase]}")
    # Let the window empty, so the next phase's gauge shows that phase alone.
    wait_for("the window to empty", lambda: key not in scrape(metrics_url), WINDOW_SECONDS + 5, checkpoint)
    return grounded


def _scrape_until_decided(metrics_url: str, before: Samples, traces: int,
                          checkpoint: Callable[[], None]) -> Samples:
    """The first scrape in which `traces` more traces have an outcome than in `before`."""
    deadline = time.monotonic() + 30
    while True:
        after = scrape(metrics_url)
        done = total(after, "ragmon_traces_total") - total(before, "ragmon_traces_total")
        if done >= traces:
            return after
        if time.monotonic() > deadline:
            raise RagmonError(f"only {done:.0f} of {traces} traces were decided within 30s")
        checkpoint()
        time.sleep(0.05)


def _replay(golden: Path, phase: str, expected: int) -> list[str]:
    result = subprocess.run([sys.executable, "-m", "ragmon.cli", "replay", str(golden), "--gate", GATE],
                            capture_output=True, text=True, timeout=120, check=False,
                            env=_without_user_settings())
    verdict = {0: "gates held", 1: "gate breached", 2: "could not run"}.get(result.returncode, "?")
    _say(f"\n-- {phase} build: exit {result.returncode} ({verdict})")
    _say(textwrap.indent(result.stdout.rstrip() or result.stderr.rstrip(), "   "))
    if result.returncode != expected:
        return [f"replay of the {phase} golden set exited {result.returncode}, expected {expected}: "
                f"{result.stderr.strip()}"]
    return []


def _say(text: str) -> None:
    """A line of the tour on stdout. A stdout that stops taking it (`| head`, a full disk) ends the tour
    with exit 2 and one line saying so, its sidecar stopped, not with a traceback called a bug in ragmon."""
    print_out(text + "\n", "the demo's progress")


def _heeds_sigterm() -> None:
    """The tour's sidecar stops on the SIGTERM the tour sends it, even when the tour started with SIGTERM
    ignored (`trap '' TERM`): a signal ignored at start stays ignored in `ragmon serve`
    (`ragmon.stop_signals.heeded`), and the tour then waited 60 s for a sidecar that never stopped."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _stop(sidecar: subprocess.Popen[bytes]) -> None:
    """The sidecar of a tour that failed, stopped as a user stops one: SIGKILLed at once, its worker pool's
    resource tracker complained of leaked semaphores into the log the tour then shows."""
    sidecar.send_signal(signal.SIGTERM)
    try:
        sidecar.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        sidecar.kill()
        sidecar.wait()


def _show_log(log_path: Path) -> None:
    """What the sidecar said before the tour failed, which often says why; nothing when it said nothing."""
    log = log_path.read_text().rstrip()
    if log:
        note("sidecar log:\n" + textwrap.indent(log, "  "))


def _ready(port: int, process: subprocess.Popen[bytes]) -> bool:
    if process.poll() is not None:
        raise RagmonError(f"`ragmon serve` exited with {process.returncode} before it was ready")
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as response:
            return bool(response.status == 200)
    except (OSError, http.client.HTTPException):
        # Not answering yet, or not answering HTTP (another process on the port, which the next
        # poll() shows as the sidecar's bind failure): not ready, and no crash of the tour.
        return False


def _without_user_settings() -> dict[str, str]:
    """The environment for the tour's own sidecar and replays. The tour passes every flag its figures
    depend on; a RAGMON_* variable meant for the user's sidecar (a token the demo app does not send, a
    sample rate, the Claude judge) would change them or break the demo."""
    return {name: value for name, value in os.environ.items() if not name.startswith("RAGMON_")}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
