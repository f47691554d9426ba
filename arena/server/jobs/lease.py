"""A table as a job queue with leases.

Theory of operation. A row is claimable when it waits (its model's "queued" state) or when
the lease of the worker holding it has expired (the worker died: killed, out of memory, the
machine restarted). A worker claims one with a single conditional ``UPDATE`` on the row as
it read it (still claimable, the same number of attempts): two workers racing for a row
cannot both win, on SQLite or PostgreSQL. On PostgreSQL the read also locks the row it
returns and passes over rows other claims have locked (``SELECT ... FOR UPDATE SKIP
LOCKED``): N workers claiming at once each get a different row at the first try, and none
waits for another's transaction. SQLite has no row locks (Django drops the clause there):
its one writer at a time and the conditional update are enough for one machine. While it
works the worker renews its lease every third of the lease (while the work advances: see
:class:`arena.server.jobs.worker.Worker`); a worker stopped by a signal releases the row
(the attempt not counted); a worker killed with ``kill -9`` leaves a lease that expires,
and the row is claimed again. A row claimed ``max_attempts`` times without an end is given
up (how, each queue says), so a job that kills its worker every time cannot block the
queue.

Which claimable row goes first is the queue's ``order``: plain fields (first in, first out)
or :func:`round_robin`, which serves the group (a team) served longest ago first. The order
is read afresh before each try, so a worker that loses a race picks by the rows as they are
now (the winner's claim counted), not by what it read before.

The lease's length is the site's one setting ``ARENA_LEASE_SECONDS`` (from the environment's
``ARENA_SERVER_LEASE_SECONDS``; read at each use, so a test can change it).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import F, OrderBy, OuterRef, Q, Subquery
from django.utils import timezone

__all__ = [
    "CLAIM_TRIES",
    "DEFAULT_MAX_ATTEMPTS",
    "LeaseQueue",
    "lease_seconds",
    "round_robin",
    "worker_name",
]

#: Claims of one job before it is given up.
DEFAULT_MAX_ATTEMPTS = 3
#: Tries of one claim (a lost race or a row given up, each followed by a fresh read).
CLAIM_TRIES = 5

Row = TypeVar("Row", bound=models.Model)


def worker_name() -> str:
    """This worker's name in the claims: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"[:64]


def lease_seconds() -> float:
    """How long a claim holds without renewal (the site's ``ARENA_LEASE_SECONDS``)."""
    return float(settings.ARENA_LEASE_SECONDS)


def round_robin(model: type[models.Model], group: str, served: Q, served_at: str) -> OrderBy:
    """An order for :attr:`LeaseQueue.order` that takes turns across ``group`` (a field,
    such as the team): a row sorts by when its group was last served -- the latest
    ``served_at`` among the group's rows matching ``served`` -- never-served groups first.
    Put the queue's own order after it (the oldest row of that group first). One correlated
    subquery in the claim's ``SELECT``, the same on SQLite and PostgreSQL."""
    last_served = (
        model._default_manager.filter(served, **{group: OuterRef(group)})
        .order_by(F(served_at).desc())
        .values(served_at)[:1]
    )
    return Subquery(last_served).asc(nulls_first=True)


def _locking_transaction() -> AbstractContextManager[object]:
    """The transaction a claim's read and update share where rows can be locked
    (PostgreSQL: the row read stays locked until the claim is written). On SQLite, nothing:
    a transaction that reads and then writes can fail at once with "database is locked"
    when another process writes meanwhile, so there the read stands alone and the
    conditional update decides."""
    if connection.features.has_select_for_update_skip_locked:
        return transaction.atomic()
    return nullcontext()


@dataclass(frozen=True, slots=True)
class LeaseQueue(Generic[Row]):
    """The queue over ``model``'s rows (each with ``claimed_by``, ``lease_expires`` and
    ``attempts`` fields). ``waiting``: the rows waiting for a worker; ``held``: the rows a
    worker holds (by their state; with an expired lease they are claimable again);
    ``released``: the fields that put a row back among the waiting ones; ``order``: which
    claimable row goes first (field names or expressions, as ``QuerySet.order_by`` takes
    them; :func:`round_robin` for turns across groups)."""

    model: type[Row]
    waiting: Q
    held: Q
    released: Mapping[str, Any]
    order: tuple[str | OrderBy, ...] = ("pk",)

    def claimable(self, now: datetime) -> Q:
        """The rows a worker may claim at ``now``."""
        return self.waiting | (self.held & Q(lease_expires__lt=now))

    def claim_next(
        self,
        worker: str,
        *,
        max_attempts: int,
        give_up: Callable[[Row, datetime], None],
        claimed: Callable[[Row], dict[str, Any]],
        then: Callable[[int], object] = lambda _pk: None,
        now: datetime | None = None,
    ) -> int | None:
        """Claim the first claimable row in :attr:`order` for ``worker``; its primary key,
        or None when there is none (or after :data:`CLAIM_TRIES` tries all lost). A row
        claimed ``max_attempts`` times already is handed to ``give_up`` (which writes its
        end) and passed over. ``claimed(row)``: the fields the claim also sets (the row's
        "held" state among them); ``then(pk)`` runs in the claim's transaction. Each try
        reads the first row afresh: the order may depend on the claims just made."""
        now = now or timezone.now()
        passed_over: list[Any] = []
        for _try in range(CLAIM_TRIES):
            with _locking_transaction():
                candidate = self._first_unlocked(now, passed_over)
                if candidate is None:
                    return None
                passed_over.append(candidate.pk)
                attempts = candidate.attempts  # type: ignore[attr-defined]
                if attempts >= max_attempts:
                    give_up(candidate, now)
                    continue
                with transaction.atomic():
                    won = self.model._default_manager.filter(
                        self.claimable(now), pk=candidate.pk, attempts=attempts
                    ).update(
                        claimed_by=worker,
                        lease_expires=now + timedelta(seconds=lease_seconds()),
                        attempts=attempts + 1,
                        **claimed(candidate),
                    )
                    if won:
                        then(candidate.pk)
                        return int(candidate.pk)
        return None

    def _first_unlocked(self, now: datetime, passed_over: list[Any]) -> Row | None:
        """The first claimable row in :attr:`order` that no other transaction holds, locked
        until this one ends (PostgreSQL; on SQLite the first claimable row)."""
        rows = (
            self.model._default_manager.filter(self.claimable(now))
            .exclude(pk__in=passed_over)
            .order_by(*self.order)
            .select_for_update(skip_locked=True, of=("self",))
        )
        return rows.first()

    def depth(self, now: datetime | None = None) -> int:
        """How many rows a worker could claim now (the queue's depth, for the admin and the
        status page)."""
        return self.model._default_manager.filter(self.claimable(now or timezone.now())).count()

    def holding(self, row: Row, worker: str) -> models.QuerySet[Row]:
        """``row`` while ``worker`` still holds it (empty once the claim is lost)."""
        return self.model._default_manager.filter(self.held, pk=row.pk, claimed_by=worker)

    def renew(self, row: Row, worker: str) -> bool:
        """Extend ``worker``'s lease on ``row``; False when the claim was lost."""
        until = timezone.now() + timedelta(seconds=lease_seconds())
        return bool(self.holding(row, worker).update(lease_expires=until))

    def release(self, row: Row, worker: str) -> None:
        """Put back a row ``worker`` was stopped in the middle of (SIGTERM): claimed again
        at once, the attempt not counted."""
        self.holding(row, worker).update(
            claimed_by="", lease_expires=None, attempts=F("attempts") - 1, **self.released
        )
