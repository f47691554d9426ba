"""Waiting longer after each failure in a row: how a worker that cannot start (the
competition file unreadable, the cluster out of reach) and the server that restarts a dead
worker keep trying without filling the log, and try again soon once the cause is gone."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Backoff"]


@dataclass(slots=True)
class Backoff:
    """Delays that start at ``first`` seconds and double after each failure in a row, up to
    ``most``; a success starts them over.

    >>> backoff = Backoff(first=1.0, most=5.0)
    >>> [backoff.failed() for _ in range(5)]
    [1.0, 2.0, 4.0, 5.0, 5.0]
    >>> backoff.succeeded(); backoff.failed()
    1.0
    """

    first: float = 1.0
    most: float = 60.0
    failures: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.most:
            raise ValueError(
                f"a back-off runs from a first delay above 0 to a longest one at least as "
                f"long, got first={self.first!r}, most={self.most!r}"
            )

    def failed(self) -> float:
        """One more failure: the seconds to wait before the next try."""
        delay = min(self.most, self.first * 2.0 ** min(self.failures, 64))
        self.failures += 1
        return delay

    def succeeded(self) -> None:
        """A try worked: the next failure waits ``first`` again."""
        self.failures = 0
