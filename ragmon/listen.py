"""Why a sidecar's listener could not start, said the same way for every port, and the check that lets
gRPC's port say it too."""

from __future__ import annotations

import errno
import socket

from ragmon.errors import RagmonError
from ragmon.options import Flag, shown_address


def cannot_listen(what: str, host: str, port: int, flag: Flag, error: OSError, *, otlp: bool) -> RagmonError:
    """A second sidecar on one machine finds the default ports taken: name the setting to change (the
    variable when the address came from one: the image's and the manifests' RAGMON_*_LISTEN) and, for an
    OTLP port, that the app must follow, as its exporter's endpoint names the port."""
    reason = error.strerror or str(error)
    taken = ""
    if error.errno == errno.EADDRINUSE:
        follow = ", and send the app's traces there" if otlp else ""
        taken = (f"; another process holds that port (a second ragmon serve?): give {flag.setting} another "
                 f"port{follow}")
    # Lower case as asyncio's bind errors give it, whichever listener failed.
    return RagmonError(f"cannot listen for {what} on {shown_address(host, port)} ({flag.named}): "
                       f"{reason[:1].lower()}{reason[1:]}{taken}")


def refused_bind(host: str, port: int) -> OSError | None:
    """Whether the port is taken (or not ours to take) at an address the host names, found by binding it
    as gRPC would (SO_REUSEADDR, no SO_REUSEPORT) and letting go. gRPC's own failure is a bare "no address
    added" to its caller and a line of its own on stderr, outside the JSON logs. Other failures (an
    address family the machine lacks, which gRPC skips) are left to gRPC: port 0 is always free."""
    if port == 0:
        return None
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError:
        return None
    for family, kind, proto, _, address in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno in (errno.EADDRINUSE, errno.EACCES):
                    return error
    return None
