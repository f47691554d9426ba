"""The log-in limit: after :data:`ACCOUNT_LIMIT` failed log-ins for one account, or
:data:`ADDRESS_LIMIT` from one address, within :data:`WINDOW` seconds, further tries are
refused (HTTP 429) until the oldest failure leaves the window. A success does not wipe
the count: a guesser that also knows one password gains nothing.

The decision is a pure function of the failures' times (:func:`is_limited`); the failures
themselves are rows of :class:`arena.server.site.models.LoginFailure`, so every process of the
site counts the same ones.

>>> is_limited([0.0] * 5, now=60.0, limit=5, window=900.0)
True
>>> is_limited([0.0] * 5, now=901.0, limit=5, window=900.0)
False
>>> is_limited([0.0] * 4, now=60.0, limit=5, window=900.0)
False
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["ACCOUNT_LIMIT", "ADDRESS_LIMIT", "WINDOW", "is_limited"]

#: Failed log-ins one account may have in the window.
ACCOUNT_LIMIT = 5
#: Failed log-ins one address may make in the window (a shared lab's address has room).
ADDRESS_LIMIT = 20
#: The window, in seconds (15 minutes).
WINDOW = 900.0


def is_limited(failures: Iterable[float], *, now: float, limit: int, window: float) -> bool:
    """Whether the failures (times in seconds) within ``window`` before ``now`` reach ``limit``."""
    return sum(1 for at in failures if now - at < window) >= limit
