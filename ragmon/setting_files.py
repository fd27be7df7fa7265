"""Files that hold a setting, a token or request headers, read whole at start, and bounded: read as they
came, `--token-file /dev/zero` took gigabytes before a MemoryError's traceback, and a named pipe with no
writer hung the start without a line. A pipe with a writer (`--token-file <(vault read ...)`) is read."""

from __future__ import annotations

import os
from pathlib import Path

SETTING_FILE_BYTES = 64 * 1024
"""More than any token or header file holds: a bearer token is under 8 KiB, headers a few lines."""


def read_setting_file(path: Path, encoding: str = "utf-8") -> str:
    """The text of `path`. A ValueError says why what was read is none to use (too large, not text); an
    OSError why it could not be read. Opened without blocking, as a FIFO's open waits for a writer (one with
    none then reads as empty), then read blocking, as a pipe's writer may not have written yet."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    os.set_blocking(descriptor, True)
    with os.fdopen(descriptor, "rb") as handle:
        data = handle.read(SETTING_FILE_BYTES + 1)
    if len(data) > SETTING_FILE_BYTES:
        raise ValueError(f"it holds more than {SETTING_FILE_BYTES // 1024} KiB, more than such a file holds")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise ValueError("it is not UTF-8 text") from None
