"""The optional bearer token on the OTLP endpoints, checked the same way for HTTP and gRPC."""

from __future__ import annotations

import hmac


def bearer_ok(header: str, token: bytes) -> bool:
    """Whether `header` is `Bearer <token>`. The scheme is case-insensitive (RFC 9110); the token is
    compared in constant time so response timing does not reveal it byte by byte.

    aiohttp reads a header's bytes that are not UTF-8 as lone surrogates (surrogateescape): `surrogatepass`
    gives them bytes to compare, which no token (UTF-8 text) has, so such a header is a wrong token, as
    any other, rather than a UnicodeEncodeError and a 500 that no count or log line of ragmon's sees."""
    scheme, _, credentials = header.strip().partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        credentials.strip().encode("utf-8", "surrogatepass"), token)
