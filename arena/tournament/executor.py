"""Where a tournament's matches run: one ``concurrent.futures.Executor`` seam.

The runner submits :func:`~arena.tournament.worker.play_match` jobs to an executor and
collects the outcomes; it does not know what runs them. :func:`local_executor` is the
default, a pool of worker processes on this machine (each match in its own process); a
cluster's executor (Dask's ``Client.get_executor()``) is another implementation of the
same interface.

The pool's workers die with the host: each asks the kernel for ``SIGKILL`` when its parent
dies (``PR_SET_PDEATHSIG``), and the bots' supervisors do the same with their worker, so a
``kill -9`` of the host leaves no process behind. They are started with ``spawn`` (not
``fork``): a fresh interpreter holds none of the host's threads, locks or open files (the
results database among them).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing import resource_tracker

__all__ = ["default_concurrency", "local_executor"]

_PR_SET_PDEATHSIG = 1


def default_concurrency() -> int:
    """The number of processor cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def local_executor(workers: int) -> Executor:
    """A pool of ``workers`` processes on this machine that die with the host."""
    if workers < 1:
        raise ValueError(f"a pool needs at least one worker, got {workers}")
    return LocalProcessPool(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


class LocalProcessPool(ProcessPoolExecutor):
    """A process pool that leaves no helper process behind when it is shut down.

    ``spawn`` starts multiprocessing's resource tracker, a process that would otherwise live
    as long as the host: a command that ran a tournament must end every process it started.
    """

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Shut the pool down, then its resource tracker (once the workers are gone)."""
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        if wait:
            stop = getattr(resource_tracker._resource_tracker, "_stop", None)
            if callable(stop):
                stop()


def die_with_parent(parent_pid: int) -> None:
    """In a worker: be killed when the host dies (and leave now if it already has)."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is not None:
        libc = ctypes.CDLL(libc_name, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), 0, 0, 0)
    # The host may have died between the fork and the prctl: the signal would never come.
    if os.getppid() != parent_pid:
        os._exit(1)
