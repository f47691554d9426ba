"""API tokens: made at random, shown once, kept as their SHA-256 digest.

A token is ``arena_`` and 43 URL-safe characters (256 bits). A stolen database gives no
token back: a random token of that length needs no slow hash, only a one-way one.

>>> token = new_token()
>>> token.startswith("arena_"), len(token), token_prefix(token) == token[:12]
(True, 49, True)
>>> token_digest(token) == token_digest(token), token_digest(token) == token_digest(new_token())
(True, False)
>>> bearer_token("Bearer abc"), bearer_token("Basic abc"), bearer_token(None)
('abc', None, None)
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["TOKEN_PREFIX", "bearer_token", "new_token", "token_digest", "token_prefix"]

TOKEN_PREFIX = "arena_"


def new_token() -> str:
    """A new random token."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """The digest kept for ``token`` (hex SHA-256)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_prefix(token: str) -> str:
    """The token's first characters, shown in the list of tokens to tell them apart."""
    return token[:12]


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
