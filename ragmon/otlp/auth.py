"""The optional bearer token on the OTLP endpoints, checked the same way for HTTP and gRPC."""

from __future__ import annotations

import hmac


def bearer_ok(header: str, token: bytes) -> bool:
    """Whether `header` is `Bearer <token>`. The scheme is case-insensitive (RFC 9110); the token is
    compared in constant time so response timing does not reveal it byte by byte."""
    scheme, _, credentials = header.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(credentials.strip().encode(), token)
