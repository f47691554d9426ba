"""The seam between a tournament's host and what plays its matches: :class:`MatchExecutor`.

The host hands :class:`~arena.cluster.job.MatchJob` values to a ``MatchExecutor`` and
stores the outcomes its futures bring; it does not know what plays them. Two executors fit:
a pool of worker processes on this machine (:func:`~arena.cluster.local.local_executor`,
the default) and a Dask cluster (:func:`~arena.cluster.dask_executor.dask_executor`).
Each is given the function that plays a job (:data:`Play`, the tournament's
``play_match``) and is closed by whoever made it (both are context managers).

Also here, for both: how many matches this machine plays at once by default, and the two
chores of a process started for matches (die with its parent; leave no resource tracker).
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
from collections.abc import Callable
from concurrent.futures import Future
from multiprocessing import resource_tracker
from typing import Protocol

from arena.cluster.job import MatchJob
from arena.store.outcome import MatchOutcome

__all__ = [
    "MatchExecutor",
    "Play",
    "default_concurrency",
    "die_with_parent",
    "stop_resource_tracker",
]

#: The function that plays a job where an executor runs it (a module-level function: it is
#: sent to other processes by name).
Play = Callable[[MatchJob], MatchOutcome]

_PR_SET_PDEATHSIG = 1
# The C library, loaded once (by a referee zygote before it forks): the program's own
# symbols include prctl, so there is no search for the library (ctypes.util runs ldconfig)
# in each process that asks.
_LIBC = ctypes.CDLL(None, use_errno=True)


class MatchExecutor(Protocol):
    """Plays a tournament's matches somewhere, a few at a time: all the host knows of
    where they run."""

    @property
    def concurrency(self) -> int:
        """How many matches it plays at once."""
        ...

    def submit(self, job: MatchJob) -> Future[MatchOutcome]:
        """Start playing ``job``. A match's own trouble comes back as a failed outcome;
        the future's exception is a bug of ours, or workers that keep dying."""
        ...

    def close(self) -> None:
        """Stop: no match is started any more, the workers are released. Closing twice
        does nothing."""
        ...


def default_concurrency() -> int:
    """The number of processor cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def die_with_parent(parent_pid: int) -> None:
    """In a pool's worker or a referee: be killed when the parent ``parent_pid`` dies, and
    leave now if it already has."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
    # The parent may have died between the fork and the prctl: the signal would never come.
    if os.getppid() != parent_pid:
        os._exit(1)


def stop_resource_tracker() -> None:
    """Stop multiprocessing's resource tracker, which ``spawn`` starts and which would
    otherwise live as long as the host (a command must end every process it started). It
    ends once no process holds its pipe: call this after the spawned processes are gone."""
    # The tracker removes every semaphore still registered when it stops (and warns about
    # them as leaked): first let a pool's queues that only a reference cycle keeps alive
    # remove their own.
    gc.collect()
    stop = getattr(resource_tracker._resource_tracker, "_stop", None)
    if callable(stop):  # pragma: no branch - every Python 3.11+ has it
        stop()
