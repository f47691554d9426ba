"""Tournaments on a Dask cluster: the executor behind ``arena tournament --executor dask``.

:class:`DaskMatchExecutor` makes each job one Dask task, :func:`play_on_worker`: a referee
process on a worker plays the match under a deadline
(:func:`~arena.cluster.task.run_in_referee`), and is killed as soon as the worker hears that
the host cancelled the task (a stopped tournament). Where every worker shares the host's
run folder at the same path (checked at the start by a file the host writes there) the
match writes its files there, else it sends them back with its outcome. The executor
releases a task's Dask future as soon as it has the outcome (a finished task whose future
is held would be computed again if its worker died): one outcome per match, stored by the
host alone. Workers killed mid-match, deadlines and cancels: docs/cluster.md.

:class:`DaskCluster` connects to a scheduler (``--scheduler tcp://HOST:8786``) or starts
worker processes on this machine, and checks before the first match that every worker can
start every bot (:func:`~arena.cluster.checks.check_bots_here`)."""

from __future__ import annotations

import contextlib
import importlib
import logging
import threading
import time
import uuid
from collections.abc import Sequence
from concurrent.futures import Future
from concurrent.futures import wait as wait_for
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import psutil

from arena.cluster.checks import check_bots_here, sees_file
from arena.cluster.executor import Play, stop_resource_tracker
from arena.cluster.files import unpack_files
from arena.cluster.job import MatchJob, failed_outcome
from arena.cluster.task import match_deadline, run_in_referee
from arena.store.closing import ClosedOnExit
from arena.store.outcome import MatchOutcome

__all__ = ["ClusterError", "DaskCluster", "DaskMatchExecutor", "dask_executor", "play_on_worker"]

#: Seconds to wait for a scheduler to answer.
CONNECT_TIMEOUT_S = 30.0
#: Seconds a local cluster's processes get to end after it is closed.
CLOSE_TIMEOUT_S = 30.0
#: The most problems of bots on workers listed in one error.
MAX_LISTED_PROBLEMS = 20


class ClusterError(RuntimeError):
    """The Dask cluster cannot play the tournament; the message says why and what to do."""

    code = "cluster"


def _distributed() -> ModuleType:
    """The ``distributed`` package, or a clear error naming the extra to install."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ClusterError(
            "--executor dask needs the 'distributed' package: install the arena with its "
            "dask extra (pip install '.[dask]' in the checkout)"
        ) from None


class DaskCluster:
    """A connection to a Dask scheduler, and the local cluster behind it when this run
    started one. Close it (or the executor it made) when the tournament ends."""

    def __init__(self, client: Any, local: Any = None) -> None:
        self.client = client
        self.local = local
        #: The run folder every worker shares with the host, if any (see check_bots).
        self.shared_folder: Path | None = None
        self._is_closed = False

    @classmethod
    def start(
        cls, scheduler: str | None, workers: int, *, timeout_s: float | None = None
    ) -> DaskCluster:
        """Connect to ``scheduler`` (waiting up to ``timeout_s``, default
        :data:`CONNECT_TIMEOUT_S`), or (None) start ``workers`` worker processes of one
        thread each on this machine, its scheduler on the loopback address only."""
        distributed = _distributed()
        if scheduler is not None:
            wait_s = CONNECT_TIMEOUT_S if timeout_s is None else timeout_s
            try:
                client = distributed.Client(scheduler, timeout=wait_s, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise ClusterError(
                    f"cannot reach the Dask scheduler at {scheduler}: {exc} "
                    "(is `dask scheduler` running there, and the port open to this machine?)"
                ) from None
            return cls(client)
        if workers < 1:
            raise ClusterError(f"a local Dask cluster needs at least one worker, got {workers}")
        local = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        try:
            client = distributed.Client(local, set_as_default=False)
        except Exception:  # pragma: no cover - a cluster that started but cannot be reached
            local.close()
            raise
        return cls(client, local)

    @property
    def address(self) -> str:
        """The scheduler's address."""
        return str(self.client.scheduler.address)

    def thread_count(self) -> int:
        """Worker threads in the cluster now: how many matches it plays at once."""
        return int(sum(self.client.nthreads().values()))

    def describe(self) -> str:
        """One line for the user: which cluster, how many workers and threads, and where
        the matches' files are written."""
        where = "a local cluster" if self.local is not None else f"scheduler {self.address}"
        workers = len(self.client.nthreads())
        files = (
            "matches write into the shared run folder"
            if self.shared_folder is not None
            else "match files come back with each outcome"
        )
        return f"executor: dask, {where}: {workers} workers, {self.thread_count()} threads; {files}"

    def check_bots(
        self,
        manifests: Sequence[Path],
        sandbox: str,
        *,
        working_dirs: Sequence[Path | None] = (),
        run_folder: Path | None = None,
    ) -> None:
        """Raise :class:`ClusterError` unless every worker can start every bot under
        ``sandbox``, from its build when ``working_dirs`` names one (see
        :func:`~arena.cluster.checks.check_bots_here`). Then, given the host's
        ``run_folder``, find out whether every worker can write there (at the same path):
        :attr:`shared_folder`."""
        try:
            answers = self.client.run(
                check_bots_here, list(manifests), sandbox, working_dirs=list(working_dirs)
            )
        except Exception as exc:  # a worker without the arena cannot even run the check
            raise ClusterError(
                f"the Dask workers cannot run the arena's check: {type(exc).__name__}: {exc} "
                "(is this project, the same version, installed on every worker?)"
            ) from None
        if not answers:
            raise ClusterError(f"the Dask cluster at {self.address} has no workers")
        problems = [
            f"worker {worker}: {problem}"
            for worker, found in sorted(answers.items())
            for problem in found
        ]
        if problems:
            listed = "\n  ".join(problems[:MAX_LISTED_PROBLEMS])
            more = len(problems) - MAX_LISTED_PROBLEMS
            tail = f"\n  ... and {more} more" if more > 0 else ""
            raise ClusterError(
                "the bots cannot start on every Dask worker (each worker needs the bots and "
                f"their builds at the same paths as here; see docs/cluster.md):\n  {listed}{tail}"
            )
        self.shared_folder = None if run_folder is None else self._shared(run_folder)

    def _shared(self, folder: Path) -> Path | None:
        """``folder`` when every worker sees the file the host writes in it, and may write
        there; else None (the matches' files then travel with their outcomes)."""
        token = uuid.uuid4().hex
        marker = folder / f".dask-check-{token}"
        try:
            marker.write_text(token, encoding="utf-8")
            answers = self.client.run(sees_file, marker, token)
        except OSError:
            return None
        finally:
            marker.unlink(missing_ok=True)
        return folder if answers and all(answers.values()) else None

    def executor(
        self,
        play: Play,
        *,
        concurrency: int | None = None,
        match_deadline_s: float | None = None,
    ) -> DaskMatchExecutor:
        """An executor over this cluster whose referees play each job with ``play``;
        closing it closes the cluster. ``concurrency`` None: as many matches at once as the
        cluster has threads now."""
        if self._is_closed:
            raise ClusterError("the Dask cluster was closed already")
        return DaskMatchExecutor(
            self,
            play,
            concurrency=self.thread_count() if concurrency is None else concurrency,
            match_deadline_s=match_deadline_s,
        )

    def close(self) -> None:
        """Disconnect; a local cluster is stopped, and its processes (the workers, their
        referees and bots) are waited for. Closing twice does nothing."""
        if self._is_closed:
            return
        self._is_closed = True
        family = self._local_processes()
        self.client.close()
        if self.local is None:
            return
        self.local.close()
        _gone, alive = psutil.wait_procs(family, timeout=CLOSE_TIMEOUT_S)
        for process in alive:  # pragma: no cover - a worker that ignored its nanny
            process.kill()
        psutil.wait_procs(alive)
        # The workers were started with ``spawn``, which starts multiprocessing's resource
        # tracker: stop it too, as the local process pool does, so nothing is left.
        stop_resource_tracker()

    def _local_processes(self) -> list[psutil.Process]:
        """The local cluster's worker processes now (a killed one was restarted under
        another process id) with everything below them: zygotes, referees, bots."""
        family: list[psutil.Process] = []
        nannies = [] if self.local is None else list(self.local.workers.values())
        for nanny in nannies:
            if not nanny.pid:  # pragma: no cover - a worker being restarted just now
                continue
            try:
                worker = psutil.Process(nanny.pid)
                family.extend([worker, *worker.children(recursive=True)])
            except psutil.NoSuchProcess:  # pragma: no cover - it ended just now
                continue
        return family


class DaskMatchExecutor(ClosedOnExit):
    """Plays match jobs on a Dask cluster, each in a referee process on a worker (see the
    module docstring): a :class:`~arena.cluster.executor.MatchExecutor`.
    ``play`` is the function a referee plays a job with; ``match_deadline_s`` None gives
    each match :func:`~arena.cluster.task.match_deadline`."""

    def __init__(
        self,
        cluster: DaskCluster,
        play: Play,
        *,
        concurrency: int,
        match_deadline_s: float | None = None,
    ) -> None:
        self.cluster = cluster
        self.match_deadline_s = match_deadline_s
        self._concurrency = concurrency
        self._play = play
        self._pending: dict[Future[MatchOutcome], Any] = {}
        self._lock = threading.Lock()
        self._is_closed = False

    @property
    def concurrency(self) -> int:
        """How many matches it plays at once."""
        return self._concurrency

    def describe(self) -> str:
        """One line for the user about the cluster (see :meth:`DaskCluster.describe`)."""
        return self.cluster.describe()

    def submit(self, job: MatchJob) -> Future[MatchOutcome]:
        """Send ``job`` to the cluster; the future gets its outcome, never an error."""
        if self._is_closed:
            raise RuntimeError("cannot submit a match after the executor was closed")
        deadline = self.match_deadline_s
        if deadline is None:
            deadline = match_deadline(job)
        # A match whose run folder the workers share writes there; any other sends its
        # files back with its outcome.
        ship_files = job.tournament_dir != self.cluster.shared_folder
        key = f"match-{job.match_id}-{uuid.uuid4().hex[:12]}"
        task = self.cluster.client.submit(
            play_on_worker,
            self._play,
            job,
            deadline,
            key,
            ship_files=ship_files,
            key=key,
            pure=False,
        )
        result: Future[MatchOutcome] = Future()
        with self._lock:
            self._pending[result] = task
        task.add_done_callback(partial(self._finish, result, job, ship_files))
        return result

    def _finish(
        self, result: Future[MatchOutcome], job: MatchJob, ship_files: bool, task: Any
    ) -> None:
        """In Dask's callback thread: fetch, write the files, release, complete. A bug of
        ours here reaches the runner as the future's exception (it stops the run loudly)
        instead of leaving the runner waiting for a future that never ends."""
        with self._lock:
            self._pending.pop(result, None)
        error: BaseException | None = None
        try:
            outcome = _collect(job, task, ship_files=ship_files)
        except BaseException as exc:
            error = exc
        finally:
            # A client closed meanwhile (a shutdown) has released every task already.
            with contextlib.suppress(RuntimeError):
                task.release()
        if not result.set_running_or_notify_cancel():
            return  # cancelled by a shutdown: nobody waits for it
        if error is not None:
            result.set_exception(error)
        else:
            result.set_result(outcome)

    def close(self, *, cancel: bool = True) -> None:
        """Stop taking matches; cancel those not finished (or, not ``cancel``, wait for
        them); then close the cluster (a local one is stopped). Closing twice does nothing
        more."""
        self._is_closed = True
        with self._lock:
            pending = dict(self._pending)
        if cancel:
            for result in pending:
                result.cancel()
            self.cluster.client.cancel(list(pending.values()))
        wait_for([result for result in pending if not result.cancelled()])
        self.cluster.close()


def play_on_worker(
    play: Play, job: MatchJob, deadline_s: float, key: str, *, ship_files: bool
) -> MatchOutcome:
    """What the Dask task ``key`` runs on its worker: ``job`` played by a referee (see
    :func:`~arena.cluster.task.run_in_referee`) for as long as the scheduler wants the task.

    Dask lets a running task run on when its host cancels it (the worker only marks it
    ``cancelled``), and a worker whose event loop was busy (importing the match's code for
    its first task, on a loaded machine) may start a task whose cancel it has not read
    yet: without this, the referee of a stopped tournament played on to its deadline.
    """
    worker = _distributed().get_worker()
    is_wanted = partial(_is_wanted, worker, key)
    return run_in_referee(play, job, deadline_s, ship_files=ship_files, is_wanted=is_wanted)


def _is_wanted(worker: Any, key: str) -> bool:
    """Whether ``worker`` still has the task ``key`` to compute, not ``cancelled`` (its
    client cancelled or released it, or left)."""
    task = worker.state.tasks.get(key)
    return task is not None and task.state != "cancelled"


def _collect(job: MatchJob, task: Any, *, ship_files: bool = True) -> MatchOutcome:
    """The outcome of a finished task, its files written under the host's run folder (when
    they were shipped); a failed outcome for a task that failed or was dropped."""
    started = time.monotonic()
    if task.status == "cancelled":
        return failed_outcome(
            job, "cancelled: the Dask scheduler dropped the match", duration_s=0.0
        )
    if task.status != "finished":
        error = task.exception()
        why = f"the match's Dask task failed: {type(error).__name__}: {error}"
        return failed_outcome(job, why, duration_s=0.0)
    try:
        outcome: MatchOutcome = task.result()
    except Exception as exc:  # the worker holding the result died before it was fetched
        why = f"the match's outcome could not be fetched: {type(exc).__name__}: {exc}"
        return failed_outcome(job, why, duration_s=time.monotonic() - started)
    if not ship_files:
        return outcome  # the match wrote its files into the shared run folder
    try:
        unpack_files(outcome.files, job.match_dir)
    except (OSError, ValueError) as exc:
        why = f"the match's files could not be written to {job.match_dir}: {exc}"
        return failed_outcome(job, why, duration_s=outcome.duration_s)
    return replace(outcome, files=())


def dask_executor(
    play: Play,
    scheduler: str | None,
    workers: int,
    *,
    concurrency: int | None = None,
    manifests: Sequence[Path] = (),
    sandbox: str = "none",
    working_dirs: Sequence[Path | None] = (),
    run_folder: Path | None = None,
    match_deadline_s: float | None = None,
) -> DaskMatchExecutor:
    """An executor playing jobs with ``play`` on the cluster at ``scheduler`` (None: a
    local cluster of ``workers`` processes), after checking that every worker can start
    the bots of ``manifests`` (from ``working_dirs``, their builds, where given) and
    whether the workers share ``run_folder``; it plays ``concurrency`` matches at once
    (None: one per thread of the cluster). Closing it closes the client and the local
    cluster it started. Raises :class:`ClusterError` saying why the cluster cannot play."""
    cluster = DaskCluster.start(scheduler, workers)
    try:
        cluster.check_bots(manifests, sandbox, working_dirs=working_dirs, run_folder=run_folder)
        return cluster.executor(play, concurrency=concurrency, match_deadline_s=match_deadline_s)
    except ClusterError:
        cluster.close()
        raise
