"""A `ragmon` child that marks the moment it starts writing a report, for tests that signal it while open()
waits for a FIFO's reader (replay's and calibrate's reports alike)."""

from __future__ import annotations

import signal
import subprocess
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
