"""The loop of a worker command (``validate_uploads``, ``ladder_worker``), written once.

A worker claims a job, works on it while a thread renews the job's lease, stores what the
work gave, and claims the next; with nothing to do it sleeps ``poll`` seconds (``once``:
it stops instead); paced (``spacing``), it starts a job at most every so many seconds, and
waits without a claim in hand. The lease is renewed only while the work shows progress
(``progress``: for a ladder game, the hands its matches have written): a worker stuck on a
game (a hung pool, a cleanup cut short) stops pushing its lease forward, the lease expires
and another worker plays the game again. SIGTERM or SIGINT stops it, once: the first
signal raises :class:`Stop`, every later one is ignored (the kernel's parent-death signal
can come twice, and a second stop must not cut the first one's cleanup short); the job in
hand is released (see :meth:`arena.server.jobs.lease.LeaseQueue.release`) and the loop
ends. Work that raises is
the site's failure, never the bot's: the worker says so on stderr and stores what
``failed`` makes of the error; a result the database refuses is said on stderr and left
(its claim runs out, and the job is done again), never a dead worker. A worker started by
``arena server run`` dies with it (see :mod:`arena.server.lifeline`).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from arena.server.jobs.lease import lease_seconds
from arena.server.jobs.models import NOTICE_AFTER
from arena.server.lifeline import die_with_parent

__all__ = ["Leases", "NoTally", "Stop", "Tally", "Worker"]

Job = TypeVar("Job")
Job_contra = TypeVar("Job_contra", contravariant=True)
Result = TypeVar("Result")

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stop(BaseException):
    """SIGTERM or SIGINT arrived (a BaseException: the work's ``except Exception`` lets it
    through)."""


class _StopOnce:
    """The stop signals' handler: the first raises :class:`Stop` and ignores the signals
    from then on; one already on its way when they were ignored does nothing."""

    def __init__(self) -> None:
        self.stopping = False

    def __call__(self, _signum: int, _frame: object) -> None:
        if self.stopping:
            return
        self.stopping = True
        for number in _STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        raise Stop


class Leases(Protocol[Job_contra]):
    """What a worker needs of its queue's leases (a
    :class:`~arena.server.jobs.lease.LeaseQueue`)."""

    def renew(self, row: Job_contra, worker: str, /) -> bool:
        """Extend ``worker``'s lease on ``row``; False when the claim was lost."""

    def release(self, row: Job_contra, worker: str, /) -> None:
        """Put ``row`` back, the attempt not counted."""

    def depth(self) -> int:
        """Jobs waiting now."""


class Tally(Protocol):
    """Where a worker keeps count of itself (the database's
    :class:`~arena.server.jobs.models.RecordTally`, shown in the admin)."""

    def looked(self, depth: Callable[[], int], /) -> None:
        """The worker looked for a job; ``depth()`` is how many are waiting (a query:
        called only when the tally keeps it)."""

    def finished(self, failure: str | None, /) -> int:
        """A job is done, ``failure`` what failed on the site's side (None: nothing); the
        site's failures in a row now."""


class NoTally:
    """No count kept (a worker in a test)."""

    def looked(self, depth: Callable[[], int], /) -> None:
        """Nothing kept."""

    def finished(self, failure: str | None, /) -> int:
        """Nothing kept: no failures in a row."""
        return 0


@dataclass(frozen=True, slots=True)
class Worker(Generic[Job, Result]):
    """One kind of worker, ``worker`` by name in the claims: how it claims a job (``claim``:
    None when there is none), the leases of its queue, how it works on a job, turns an
    error of the work into a result (``failed``) and stores a result. ``name(job)`` names a
    job in the messages ``warn`` writes (the command's stderr)."""

    worker: str
    claim: Callable[[], Job | None]
    leases: Leases[Job]
    work: Callable[[Job], Result]
    failed: Callable[[Job, Exception], Result]
    store: Callable[[Job, Result], None]
    name: Callable[[Job], str]
    warn: Callable[[str], object]
    progress: Callable[[Job], object] | None = None
    site_failure: Callable[[Result], str | None] = lambda _result: None
    tally: Tally = field(default_factory=NoTally)

    def run(
        self,
        *,
        once: bool = False,
        jobs: int | None = None,
        poll: float = 1.0,
        spacing: float = 0.0,
        closing: Callable[[], None] = lambda: None,
    ) -> None:
        """Claim and work until stopped (``once``: until nothing is left; ``jobs``: after
        that many jobs), a job started at most every ``spacing`` seconds; ``closing`` runs
        at the end, the stop signals ignored meanwhile so that a second one cannot cut it
        short. A worker that runs until stopped dies with its parent, ``arena server
        run``, even when that is killed with SIGKILL."""
        if not once and jobs is None:
            die_with_parent()
        previous = {number: signal.signal(number, _StopOnce()) for number in _STOP_SIGNALS}
        done = 0
        started: float | None = None
        try:
            while jobs is None or done < jobs:
                if started is not None:  # paced: wait, holding no claim, for the next slot
                    time.sleep(max(0.0, started + spacing - time.monotonic()))
                job = self.claim()
                self.tally.looked(self.leases.depth)
                if job is None:
                    if once:
                        return
                    time.sleep(poll)
                    continue
                started = time.monotonic() if spacing > 0 else None
                self.run_one(job)
                done += 1
        except Stop:
            return
        finally:
            for number in _STOP_SIGNALS:
                signal.signal(number, signal.SIG_IGN)
            try:
                closing()
            finally:
                for number, handler in previous.items():
                    signal.signal(number, handler)

    def run_one(self, job: Job) -> None:
        """Work on ``job`` while its lease is kept, then store the result (:class:`Stop`
        releases the job and passes through)."""
        finished = threading.Event()
        every = lease_seconds() / 3

        def keep_lease() -> None:
            seen = self._progress(job)
            while not finished.wait(every):
                now = self._progress(job)
                if now == seen:  # stuck: let the lease run out, for another to play it
                    continue
                seen = now
                if not self.leases.renew(job, self.worker):
                    return  # the claim is lost: nothing left to keep

        keeper = threading.Thread(target=keep_lease, daemon=True)
        keeper.start()
        try:
            result = self.work(job)
        except Stop:
            self.leases.release(job, self.worker)
            raise
        except Exception as error:  # our bug or the host's: the bot is not to blame
            self.warn(f"{self.name(job)} failed: {error!r}")
            result = self.failed(job, error)
            failure: str | None = repr(error)
        else:
            failure = self.site_failure(result)
        finally:
            finished.set()
            keeper.join()
        try:
            self.store(job, result)
        except Exception as error:  # the database refused it: the lease runs out, played again
            self.warn(f"{self.name(job)}: its result could not be stored: {error!r}")
            failure = f"storing: {error!r}"
        in_a_row = self.tally.finished(failure)
        if in_a_row == NOTICE_AFTER:
            self.warn(
                f"worker {self.worker}: {in_a_row} site failures in a row, the last: {failure}"
            )

    def _progress(self, job: Job) -> object:
        """Where ``job``'s work is now (without :attr:`progress`: a value never seen
        before, so the lease is renewed at each look)."""
        return object() if self.progress is None else self.progress(job)
