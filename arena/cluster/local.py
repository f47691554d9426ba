"""The default :class:`~arena.cluster.executor.MatchExecutor`: a pool of worker processes
on this machine, one match per process at a time.

The workers die with the host (:func:`~arena.cluster.executor.die_with_parent`, and the
bots' supervisors with their worker), so a ``kill -9`` of the host leaves no process
behind. They are started with ``spawn``: a fresh interpreter holds none of the host's
threads, locks or open files (the results database among them).

A worker killed from outside breaks the pool and fails every match it held: the executor
starts a new pool and plays those matches again from their first hand, at most
:data:`MAX_POOL_RESTARTS` times (then their futures fail with ``BrokenProcessPool``). A
``with`` block left by an exception (Ctrl-C, or a SIGTERM turned into one) kills the
workers at once instead of waiting; either way the pool is shut down properly, so the
resource tracker finds no leaked semaphores to warn about."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from multiprocessing import get_context
from types import FrameType, TracebackType
from typing import Any

from arena.cluster.executor import Play, die_with_parent, stop_resource_tracker
from arena.cluster.job import MatchJob
from arena.store.outcome import MatchOutcome

__all__ = ["MAX_POOL_RESTARTS", "LocalMatchExecutor", "local_executor"]

#: How many times a broken pool (a worker killed from outside) is replaced.
MAX_POOL_RESTARTS = 3


def local_executor(concurrency: int, play: Play) -> LocalMatchExecutor:
    """A pool of ``concurrency`` worker processes on this machine that die with the host,
    each playing its jobs with ``play``."""
    if concurrency < 1:
        raise ValueError(f"a pool needs at least one worker, got {concurrency}")
    return LocalMatchExecutor(concurrency, play)


class LocalMatchExecutor:
    """The local pool behind :func:`local_executor` (see the module docstring). Use it in a
    ``with`` block, or close it."""

    def __init__(self, concurrency: int, play: Play) -> None:
        self._concurrency = concurrency
        self._play = play
        # Reentrant: a pool's future that is already done calls back in the same thread.
        self._lock = threading.RLock()
        self._pool: ProcessPoolExecutor | None = None
        self._retired: list[ProcessPoolExecutor] = []
        self._generation = 0
        self._is_closed = False
        self._previous_sigterm = _interrupt_on_sigterm()

    @property
    def concurrency(self) -> int:
        """How many matches it plays at once: its number of worker processes."""
        return self._concurrency

    def submit(self, job: MatchJob) -> Future[MatchOutcome]:
        """Play ``job`` in a worker; the future gets its outcome."""
        result: Future[MatchOutcome] = Future()
        with self._lock:
            if self._is_closed:
                raise RuntimeError("cannot submit a match after the executor was closed")
            self._send(job, result)
        return result

    def _send(self, job: MatchJob, result: Future[MatchOutcome]) -> None:
        """Hand ``job`` to the current pool, a new one if there is none (or it broke just
        now); raises ``BrokenProcessPool`` once the pool broke more than
        :data:`MAX_POOL_RESTARTS` times. Holds the lock."""
        while True:
            if self._generation > MAX_POOL_RESTARTS:
                raise BrokenProcessPool(
                    f"the worker pool broke {self._generation} times: a worker was killed "
                    "from outside each time"
                )
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self._concurrency,
                    mp_context=get_context("spawn"),
                    initializer=die_with_parent,
                    initargs=(os.getpid(),),
                )
            try:
                task = self._pool.submit(self._play, job)
            except BrokenProcessPool:  # it broke, and its tasks have not been failed yet
                self._retire(self._generation)
                continue
            task.add_done_callback(partial(self._finish, job, result, self._generation))
            return

    def _retire(self, generation: int) -> None:
        """Retire the pool of ``generation`` if it is still the current one (its tasks may
        report its breaking in any order). Holds the lock."""
        if generation == self._generation and self._pool is not None:
            self._retired.append(self._pool)
            self._pool = None
            self._generation += 1

    def _finish(
        self,
        job: MatchJob,
        result: Future[MatchOutcome],
        generation: int,
        task: Future[MatchOutcome],
    ) -> None:
        """When the pool's task ends (in the pool's thread): complete ``result``, or play
        the job again in a new pool when a worker's death broke this one."""
        error = None if task.cancelled() else task.exception()
        if isinstance(error, BrokenProcessPool):
            with self._lock:
                if not self._is_closed:
                    self._retire(generation)
                    try:
                        self._send(job, result)
                        return
                    except BrokenProcessPool as again:
                        # Without its traceback, whose frames reach the broken pool's
                        # thread and queues: they must go before the resource tracker.
                        error = again.with_traceback(None)
        if task.cancelled() or not result.set_running_or_notify_cancel():
            result.cancel()
        elif error is not None:
            result.set_exception(error)
        else:
            result.set_result(task.result())

    def close(self, *, kill: bool = False) -> None:
        """Cancel the matches not started and wait for those playing (``kill``: kill the
        workers instead, their bots dying with them); shut every pool down and stop the
        resource tracker. Closing twice does nothing."""
        with self._lock:
            if self._is_closed:
                return
            self._is_closed = True
            pools = [*self._retired, *([self._pool] if self._pool is not None else [])]
            self._pool = None
        for pool in pools:
            if kill:
                _kill_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)
        if pools:
            stop_resource_tracker()
        _restore_sigterm(self._previous_sigterm)

    def __enter__(self) -> LocalMatchExecutor:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Close; a block left by an exception (an interrupt) kills the workers at once."""
        self.close(kill=exc_type is not None)


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """SIGKILL the pool's worker processes (the pool then reports itself broken)."""
    processes: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        if process.is_alive():
            process.kill()


_SigtermHandler = Callable[[int, FrameType | None], Any] | int | None


def _interrupt_on_sigterm() -> _SigtermHandler:
    """While a pool lives, a SIGTERM that nothing else handles interrupts the host as
    Ctrl-C does, so that the pool is shut down properly (killed outright, the host would
    leave its semaphores to the resource tracker, which warns about them). Returns what to
    restore; only the main thread may set a handler."""
    if threading.current_thread() is not threading.main_thread():
        return None
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None  # the program handles SIGTERM itself (the arena command does)
    return signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(_signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _restore_sigterm(previous: _SigtermHandler) -> None:
    if previous is not None and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, previous)
