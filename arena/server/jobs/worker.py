"""The loop of a worker command (``validate_uploads``, ``ladder_worker``), written once.

A worker claims a job, works on it while a thread renews the job's lease, stores what the
work gave, and claims the next; with nothing to do it sleeps ``poll`` seconds (``once``:
it stops instead). SIGTERM or SIGINT stops it: the job in hand is released (see
:meth:`arena.server.jobs.lease.LeaseQueue.release`) and the loop ends. Work that raises is
the site's failure, never the bot's: the worker says so on stderr and stores what
``failed`` makes of the error. A worker started by ``arena server run`` dies with it (see
:mod:`arena.server.lifeline`).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from arena.server.jobs.lease import lease_seconds
from arena.server.lifeline import die_with_parent

__all__ = ["Leases", "Stop", "Worker"]

Job = TypeVar("Job")
Job_contra = TypeVar("Job_contra", contravariant=True)
Result = TypeVar("Result")

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Stop(BaseException):
    """SIGTERM or SIGINT arrived (a BaseException: the work's ``except Exception`` lets it
    through)."""


def _stop(_signum: int, _frame: object) -> None:
    raise Stop


class Leases(Protocol[Job_contra]):
    """What a worker needs of its queue's leases (a
    :class:`~arena.server.jobs.lease.LeaseQueue`)."""

    def renew(self, row: Job_contra, worker: str, /) -> bool:
        """Extend ``worker``'s lease on ``row``; False when the claim was lost."""

    def release(self, row: Job_contra, worker: str, /) -> None:
        """Put ``row`` back, the attempt not counted."""


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

    def run(
        self,
        *,
        once: bool = False,
        jobs: int | None = None,
        poll: float = 1.0,
        closing: Callable[[], None] = lambda: None,
    ) -> None:
        """Claim and work until stopped (``once``: until nothing is left; ``jobs``: after
        that many jobs); ``closing`` runs at the end, the stop signals ignored meanwhile so
        that a second one cannot cut it short. A worker that runs until stopped dies with
        its parent, ``arena server run``, even when that is killed with SIGKILL."""
        if not once and jobs is None:
            die_with_parent()
        previous = {number: signal.signal(number, _stop) for number in _STOP_SIGNALS}
        done = 0
        try:
            while jobs is None or done < jobs:
                job = self.claim()
                if job is None:
                    if once:
                        return
                    time.sleep(poll)
                    continue
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
            while not finished.wait(every):
                self.leases.renew(job, self.worker)

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
        finally:
            finished.set()
            keeper.join()
        self.store(job, result)
