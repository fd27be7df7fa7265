"""A SIGTERM whose exception Python drops: what made `ragmon demo --all` exit 0 after a SIGTERM in CI."""

from __future__ import annotations

import os
import signal


class SigtermWhenCollected:
    """Sends this process SIGTERM from its finalizer. Python runs the signal's handler between the
    finalizer's bytecodes, and an exception raised there is handed to `sys.unraisablehook` ("Exception
    ignored in ...") and dropped: the code that was running goes on as if nothing had come."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGTERM)


def drop_a_sigterm() -> None:
    SigtermWhenCollected()  # collected as soon as it is made: nothing refers to it
