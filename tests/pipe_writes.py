"""`ragmon` children signalled while open() waits for a FIFO's reader, or signalling themselves as they print
a run's figures, for tests of stop signals (replay's and calibrate's alike)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


def marked_writes(module: str, function: str) -> str:
    """The `python -c` program: ragmon's CLI with `ragmon.<module>.<function>` touching ./writing first.
    `cli.main()` as the console script calls it, not `cli.main(sys.argv[1:])`: given argv, main puts the
    caller's handlers back as it returns, and a second signal sent then (a loaded machine's Ctrl-C twice)
    killed the child by the signal, -2 where the program exits 130."""
    return f"""
import pathlib, sys
from ragmon import cli, {module}
write = {module}.{function}
def writing(*args, **kwargs):
    pathlib.Path("writing").touch()
    write(*args, **kwargs)
{module}.{function} = writing
sys.exit(cli.main())
"""


def signalled_as_it_prints(module: str) -> str:
    """The `python -c` program: ragmon's CLI signalling itself (the signal's name its first argument) as
    `ragmon.<module>.print_beside` shows the run's figures, and again as the interpreter exits, when main's
    handlers are put back. `cli.main()` as the program: given argv, main puts back the caller's handlers."""
    return f"""
import atexit, os, signal, sys
from ragmon import cli, {module}
sig = signal.Signals[sys.argv.pop(1)]
print_beside = {module}.print_beside
def printing(*args, **kwargs):
    os.kill(os.getpid(), sig)
    print_beside(*args, **kwargs)
{module}.print_beside = printing
atexit.register(os.kill, os.getpid(), sig)
sys.exit(cli.main())
"""


def signalled_while_writing(child: subprocess.Popen[str], where: Path, sig: signal.Signals,
                            times: int = 1) -> tuple[int, str]:
    """`sig` sent `times` (0.2 s apart) once the child is in open(); its exit status and stderr."""
    try:
        deadline = time.monotonic() + 30
        while not (where / "writing").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        for _ in range(times):
            time.sleep(0.2)  # into open(), waiting for a reader
            child.send_signal(sig)
        status = child.wait(timeout=20)
    finally:
        child.kill()
        err = child.communicate()[1]
    return status, err


def beside_a_reader_that_leaves(args: list[str], where: Path,
                                env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m ragmon ARGS` run in `where`, whose `fifo` (made here) a reader reads 100 bytes of and
    leaves, as `head -c 100 fifo` does."""
    os.mkfifo(where / "fifo")

    def read_a_little() -> None:
        with (where / "fifo").open("rb") as fifo:
            fifo.read(100)

    reader = threading.Thread(target=read_a_little)
    reader.start()
    try:
        return subprocess.run([sys.executable, "-m", "ragmon", *args], cwd=where, env=env,
                              capture_output=True, text=True, timeout=30)
    finally:
        reader.join(30)
