"""Work that only one worker at a time may do, across processes and machines: a
transaction that first takes a PostgreSQL advisory lock named after the work (released
when the transaction ends, by commit, rollback or a killed connection), so a second worker
waits for the first to commit. SQLite writes one transaction at a time anyway: there it is
the transaction alone.

Why: making a ladder game reads the games in flight and the teams' caps, then adds one;
two workers doing it at once on PostgreSQL could both see room under a team's cap and
both add a game.

The work's first reads may go with the lock, in its round trip
(:func:`arena.server.jobs.round_trip.run_together`): the database runs them once the lock
is granted, so they see every write of the worker before.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction

from arena.server.jobs.round_trip import Answer, Statement, run_together

__all__ = ["one_at_a_time"]


@contextmanager
def one_at_a_time(name: str, *reads: Statement) -> Iterator[list[Answer]]:
    """A transaction in which no other worker runs ``name``'s work (the module docstring),
    with the answers of ``reads``, run first in it (after the lock, in its round trip)."""
    with transaction.atomic():
        lock = []
        if connection.vendor == "postgresql":
            lock = [Statement("SELECT pg_advisory_xact_lock(%s)", [zlib.crc32(name.encode())])]
        answers = run_together([*lock, *reads]) if lock or reads else []
        yield answers[len(lock) :]
