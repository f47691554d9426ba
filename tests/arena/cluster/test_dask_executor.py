"""The Dask executor on a local cluster of 2 worker processes (1 thread each).

One cluster serves the whole module (its workers are started before the first test, so
they are no test's leftovers; their referee zygotes are stopped after each test); each test
connects its own client to it by the scheduler's address, as a host connects to a remote
cluster.
"""

from __future__ import annotations

import importlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psutil
import pytest

from arena.cluster import dask_executor as dask_module
from arena.cluster import task as task_module
from arena.cluster.checks import sees_file
from arena.cluster.dask_executor import ClusterError, DaskCluster, dask_executor, play_on_worker
from arena.cluster.files import pack_files
from arena.cluster.job import MatchJob
from arena.cluster.zygote import close_zygote
from arena.match.config import MatchConfig
from arena.session.policy import TimeLimits
from arena.store.outcome import MatchOutcome, SeatOutcome
from arena.tournament.worker import play_match
from tests import TEST_BOTS
from tests.arena.cluster.helpers import (
    hold_match_tasks,
    is_a_match_task_held,
    open_the_gate,
    remove_the_gate,
    task_states,
)
from tests.arena.tournament.helpers import FOLDER, STATION

pytestmark = pytest.mark.allow_error_logs

HANG = TEST_BOTS / "hang" / "bot.toml"
#: A match that only its deadline or its cancel ends: a bot that never answers, and a long
#: decision time limit.
HUNG: dict[str, Any] = {"manifests": (HANG, STATION), "time_limits": TimeLimits(decision_s=60.0)}
#: A deadline no test waits for: a match that ends in a test was ended by its cancel.
FAR_DEADLINE_S = 600.0


@pytest.fixture(scope="module")
def local_cluster() -> Iterator[DaskCluster]:
    cluster = DaskCluster.start(None, 2)
    try:
        cluster.check_bots([FOLDER, STATION], "none")  # starts each worker's zygote too
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(autouse=True)
def fresh_zygotes(local_cluster: DaskCluster) -> Iterator[None]:
    """After each test, the workers stop their referee zygotes (and the spare referee each
    keeps ready): the next test starts them again, so none is a test's leftover."""
    yield
    local_cluster.client.run(close_zygote)


@pytest.fixture
def cluster(local_cluster: DaskCluster) -> Iterator[DaskCluster]:
    connected = DaskCluster.start(local_cluster.address, 0)
    try:
        yield connected
    finally:
        connected.close()


def job_for(
    tmp_path: Path,
    match_id: str = "m-1",
    manifests: tuple[Path, ...] = (FOLDER, STATION),
    **config: object,
) -> MatchJob:
    settings: dict[str, object] = {"hand_count": 4, "seed": 5, "match_id": match_id, **config}
    return MatchJob(
        match_id=match_id,
        config=MatchConfig(**settings),  # type: ignore[arg-type]
        bots=("first", "second"),
        manifests=manifests,
        sandbox="none",
        tournament_dir=tmp_path,
    )


def _referees(cluster: DaskCluster) -> list[psutil.Process]:
    """The referees playing on the cluster (they have bots), and their bots; not the spare
    referee each zygote keeps ready."""
    found: list[psutil.Process] = []
    for pid in cluster.client.run(_own_pid).values():
        for zygote in psutil.Process(pid).children():
            for referee in zygote.children():
                try:
                    bots = referee.children(recursive=True)
                except psutil.NoSuchProcess:  # it ended while its children were listed
                    continue
                found += [referee, *bots] if bots else []
    return found


def _own_pid() -> int:
    import os

    return os.getpid()


def _wait_for_no_referees(cluster: DaskCluster) -> None:
    deadline = time.monotonic() + 30
    while _referees(cluster) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _referees(cluster)


# -- matches -----------------------------------------------------------------------------------


def test_matches_on_the_cluster_are_the_local_matches_with_their_files_on_the_host(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    executor = cluster.executor(play_match)
    try:
        futures = [executor.submit(job_for(tmp_path, f"m-{i}")) for i in range(4)]
        outcomes = [future.result(timeout=120) for future in futures]
    finally:
        executor.close()
    for index, outcome in enumerate(outcomes):
        local = play_match(job_for(tmp_path / "local", f"m-{index}"))
        assert outcome.is_counted and outcome.match_id == f"m-{index}"
        assert outcome.hands == local.hands
        assert [_result(seat) for seat in outcome.seats] == [_result(s) for s in local.seats]
        assert outcome.files == ()  # written, then dropped before the runner sees it
        folder = tmp_path / "matches" / f"m-{index}"
        local_folder = tmp_path / "local" / "matches" / f"m-{index}"
        assert _names(folder) == _names(local_folder)  # the history, results, stderr logs
        lines = (folder / "hands.jsonl").read_text("utf-8").splitlines()
        assert len(lines) == len((local_folder / "hands.jsonl").read_text("utf-8").splitlines())
        assert (folder / "hands.jsonl").stat().st_mode & 0o777 == 0o600


def _result(seat: SeatOutcome) -> tuple[object, ...]:
    return (seat.bot, seat.chips_won, seat.place, seat.hands_played, seat.stderr_path)


def _names(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*"))


def test_where_the_workers_share_the_run_folder_matches_write_there(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    cluster.check_bots([FOLDER, STATION], "none", run_folder=tmp_path)
    assert cluster.shared_folder == tmp_path  # a local cluster's workers see this folder
    assert list(tmp_path.iterdir()) == []  # the host's test file is gone
    executor = cluster.executor(play_match)
    try:
        outcome = executor.submit(job_for(tmp_path)).result(timeout=120)
        elsewhere = executor.submit(job_for(tmp_path / "other")).result(timeout=120)
    finally:
        executor.close()
    assert outcome.is_counted and elsewhere.is_counted
    assert (tmp_path / "matches" / "m-1" / "hands.jsonl").is_file()  # written by the referee
    assert (tmp_path / "other" / "matches" / "m-1" / "hands.jsonl").is_file()  # sent back


def test_a_run_folder_the_workers_cannot_see_is_not_shared(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    cluster.check_bots([FOLDER], "none", run_folder=tmp_path / "nowhere")
    assert cluster.shared_folder is None  # the host could not even write its test file
    unseen = DaskCluster(FakeClient({"tcp://a:1": []}, sees_files=False))
    unseen.check_bots([FOLDER], "none", run_folder=tmp_path)
    assert unseen.shared_folder is None  # a worker that does not see the host's test file


def test_a_hung_match_comes_back_as_a_timeout_fault(
    tmp_path: Path, cluster: DaskCluster, local_cluster: DaskCluster
) -> None:
    executor = cluster.executor(play_match, match_deadline_s=2.0)
    try:
        job = job_for(tmp_path, **HUNG)
        outcome = executor.submit(job).result(timeout=120)
    finally:
        executor.close()
    assert outcome.ended_reason == "timeout" and not outcome.is_counted
    assert outcome.error is not None and outcome.error.startswith("timeout: ")
    _wait_for_no_referees(local_cluster)


def test_a_task_that_fails_on_its_worker_is_a_failed_match(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    # Dask ships a lambda (cloudpickle), but the referee's job cannot hold one.
    executor = cluster.executor(lambda job: play_match(job))
    try:
        outcome = executor.submit(job_for(tmp_path)).result(timeout=120)
    finally:
        executor.close()
    assert not outcome.is_counted and outcome.error is not None
    assert outcome.error.startswith("the match's Dask task failed: ")


def test_the_executor_plays_as_many_matches_as_threads_and_nothing_once_closed(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    executor = cluster.executor(play_match)
    assert executor.concurrency == 2  # 2 workers of one thread each
    assert cluster.executor(play_match, concurrency=5).concurrency == 5
    executor.close()
    with pytest.raises(RuntimeError, match="after the executor was closed"):
        executor.submit(job_for(tmp_path))
    with pytest.raises(ClusterError, match="closed already"):
        cluster.executor(play_match)


def test_closing_cancels_the_matches_not_finished_and_kills_those_playing_at_once(
    tmp_path: Path, cluster: DaskCluster, local_cluster: DaskCluster
) -> None:
    executor = cluster.executor(play_match, match_deadline_s=FAR_DEADLINE_S)
    jobs = [job_for(tmp_path, f"m-{i}", **HUNG) for i in range(4)]
    futures = [executor.submit(job) for job in jobs]
    # Two play (a worker each, with their bots), two wait for a worker.
    _wait_until(lambda: len(_referees(local_cluster)) >= 6, "the matches never started")
    executor.close()
    assert all(future.cancelled() for future in futures)
    # Killed when their workers hear of the cancel, not at their deadline: Dask lets a
    # cancelled task run on, the task itself must stop its referee.
    _wait_for_no_referees(local_cluster)


def test_a_task_started_before_its_worker_read_its_cancel_forks_no_referee(
    tmp_path: Path, cluster: DaskCluster, local_cluster: DaskCluster
) -> None:
    # Seen on a loaded machine: a worker busy importing the match's code for its first task
    # read the task and its cancel together, started the task, then marked it cancelled;
    # the task forked a referee that played on to the deadline after the executor was
    # closed. Here a gate holds the task where it asks for the zygote until its worker has
    # marked it cancelled: then it must not ask for a referee.
    workers = local_cluster.client
    workers.run(hold_match_tasks)
    try:
        executor = cluster.executor(play_match, match_deadline_s=FAR_DEADLINE_S)
        executor.submit(job_for(tmp_path, "m-held", **HUNG))
        _wait_until(lambda: any(workers.run(is_a_match_task_held).values()), "never started")
        executor.close()
        _wait_until(lambda: _held_task_states(workers) == ["cancelled"], "no cancel came")
        workers.run(open_the_gate)
        _wait_until(lambda: _held_task_states(workers) == [], "the task never ended")
    finally:
        asked = workers.run(remove_the_gate)
    assert list(asked.values()) == [[], []]  # neither worker's task asked for a referee


def _held_task_states(workers: Any) -> list[str]:
    """The states of the match m-held's task on the workers that have it."""
    return [
        state
        for states in workers.run(task_states).values()
        for key, state in states.items()
        if key.startswith("match-m-held-")
    ]


def _wait_until(condition: Callable[[], bool], failure: str) -> None:
    """Wait (up to 60 s) until ``condition`` holds, else fail saying ``failure``."""
    deadline = time.monotonic() + 60
    while not condition():
        assert time.monotonic() < deadline, failure
        time.sleep(0.05)


def test_closing_without_cancelling_waits_for_every_match(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    executor = cluster.executor(play_match)
    futures = [executor.submit(job_for(tmp_path, f"m-{i}")) for i in range(3)]
    executor.close(cancel=False)
    assert all(future.done() and future.result().is_counted for future in futures)


def test_a_task_plays_only_while_its_worker_still_has_it_to_compute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In this process, with a stand-in for the worker a task runs on (the cluster's workers
    # run these lines where coverage does not see them).
    tasks = {"match-k": SimpleNamespace(state="cancelled")}
    worker = SimpleNamespace(state=SimpleNamespace(tasks=tasks))
    monkeypatch.setattr(importlib.import_module("distributed"), "get_worker", lambda: worker)
    monkeypatch.setattr(task_module, "shared_zygote", lambda: None)  # asked for no referee
    outcome = play_on_worker(play_match, job_for(tmp_path), 60.0, "match-k", ship_files=True)
    assert outcome.error is not None and outcome.error.startswith("cancelled: ")
    assert not dask_module._is_wanted(worker, "match-k")
    tasks["match-k"].state = "executing"
    assert dask_module._is_wanted(worker, "match-k")
    assert not dask_module._is_wanted(worker, "match-gone")  # released and forgotten


# -- collecting one task -----------------------------------------------------------------------


class FakeTask:
    """A finished Dask future as the executor sees it."""

    def __init__(self, status: str, result: object = None, error: BaseException | None = None):
        self.status = status
        self._result = result
        self._error = error

    def result(self) -> object:
        if self._error is not None:
            raise self._error
        return self._result

    def exception(self) -> BaseException | None:
        return self._error

    def release(self) -> None:
        """Nothing to release."""


def _collect(job: MatchJob, task: FakeTask) -> MatchOutcome:
    outcome: MatchOutcome = dask_module._collect(job, task)
    return outcome


def test_an_outcome_from_a_shared_folder_leaves_the_folder_alone(tmp_path: Path) -> None:
    played = play_match(job_for(tmp_path))
    task = FakeTask("finished", played)
    outcome = dask_module._collect(job_for(tmp_path), task, ship_files=False)
    assert outcome is played
    assert (tmp_path / "matches" / "m-1" / "hands.jsonl").is_file()


def test_a_cancelled_task_is_a_failed_match(tmp_path: Path) -> None:
    outcome = _collect(job_for(tmp_path), FakeTask("cancelled"))
    assert outcome.error == "cancelled: the Dask scheduler dropped the match"


def test_a_task_that_killed_its_workers_is_a_failed_match(tmp_path: Path) -> None:
    error = RuntimeError("Attempted to run task on 4 different workers, all died")
    outcome = _collect(job_for(tmp_path), FakeTask("error", error=error))
    assert outcome.error == (
        "the match's Dask task failed: RuntimeError: Attempted to run task on 4 different "
        "workers, all died"
    )


def test_an_outcome_that_cannot_be_fetched_is_a_failed_match(tmp_path: Path) -> None:
    task = FakeTask("finished", error=OSError("the worker is gone"))
    outcome = _collect(job_for(tmp_path), task)
    assert outcome.error == "the match's outcome could not be fetched: OSError: the worker is gone"


def test_files_the_host_cannot_write_are_a_failed_match(tmp_path: Path) -> None:
    played = play_match(job_for(tmp_path / "worker"))
    files = pack_files(tmp_path / "worker" / "matches" / "m-1")
    (tmp_path / "matches").write_text("a file where the folder should be", encoding="utf-8")
    task = FakeTask("finished", result=MatchOutcome(**{**_fields(played), "files": files}))
    outcome = _collect(job_for(tmp_path), task)
    assert outcome.error is not None
    assert outcome.error.startswith(
        f"the match's files could not be written to {tmp_path / 'matches' / 'm-1'}: "
    )
    bad = MatchOutcome(**{**_fields(played), "files": (("../x", 0o600, b""),)})
    outcome = _collect(job_for(tmp_path / "other"), FakeTask("finished", result=bad))
    assert outcome.error is not None and "must stay in the match's folder" in outcome.error


class BrokenTask:
    """A task whose status cannot be read: a bug on the host's side."""

    released = False

    @property
    def status(self) -> str:
        raise RuntimeError("no status")

    def release(self) -> None:
        self.released = True


def test_a_bug_while_collecting_reaches_the_runner_as_an_error(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    executor = cluster.executor(play_match)
    result: Future[MatchOutcome] = Future()
    task = BrokenTask()
    executor._finish(result, job_for(tmp_path), True, task)
    assert task.released
    with pytest.raises(RuntimeError, match="no status"):
        result.result(timeout=0)
    cancelled: Future[MatchOutcome] = Future()
    cancelled.cancel()
    executor._finish(cancelled, job_for(tmp_path), True, FakeTask("cancelled"))
    assert cancelled.cancelled()  # nobody waits for it: left as it is
    executor.close()


def _fields(outcome: MatchOutcome) -> dict[str, Any]:
    return {name: getattr(outcome, name) for name in MatchOutcome.__dataclass_fields__}


# -- the cluster -------------------------------------------------------------------------------


def test_without_distributed_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def without_distributed(name: str, package: str | None = None) -> Any:
        if name == "distributed":
            raise ImportError("No module named 'distributed'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_distributed)
    with pytest.raises(ClusterError, match=r"pip install '\.\[dask\]'"):
        DaskCluster.start(None, 2)


def test_an_unreachable_scheduler_is_named() -> None:
    where = re.escape("cannot reach the Dask scheduler at tcp://127.0.0.1:1: ")
    with pytest.raises(ClusterError, match=where):
        DaskCluster.start("tcp://127.0.0.1:1", 0, timeout_s=0.5)


def test_a_local_cluster_needs_a_worker() -> None:
    with pytest.raises(ClusterError, match="at least one worker, got 0"):
        DaskCluster.start(None, 0)


def test_bots_missing_on_the_workers_are_named_worker_by_worker(
    tmp_path: Path, cluster: DaskCluster
) -> None:
    (tmp_path / "bot.toml").write_text('name = "c bot"\ncommand = ["build/bot"]\n', "utf-8")
    with pytest.raises(ClusterError) as caught:
        cluster.check_bots([FOLDER, tmp_path / "bot.toml"], "none")
    message = str(caught.value)
    assert message.startswith("the bots cannot start on every Dask worker")
    workers = sorted(cluster.client.nthreads())
    for worker in workers:
        assert f"worker {worker}: bot 'c bot': its program" in message
    assert len(workers) == 2


def test_a_check_the_workers_cannot_run_is_an_error_about_the_install(
    cluster: DaskCluster,
) -> None:
    with pytest.raises(ClusterError, match="installed on every worker"):
        cluster.check_bots([threading.Lock()], "none")  # type: ignore[list-item]


class FakeClient:
    """A client whose workers answer the check as told."""

    def __init__(self, answers: dict[str, list[str]], *, sees_files: bool = True) -> None:
        self.answers = answers
        self.sees_files = sees_files
        self.scheduler = type("Scheduler", (), {"address": "tcp://10.0.0.5:8786"})()

    def run(self, function: object, *args: object, **kwargs: object) -> dict[str, object]:
        if function is sees_file:
            return {worker: self.sees_files for worker in self.answers}
        return dict(self.answers)

    def nthreads(self) -> dict[str, int]:
        return {worker: 4 for worker in self.answers}

    def close(self) -> None:
        pass


def test_a_cluster_without_workers_is_an_error() -> None:
    with pytest.raises(ClusterError, match=r"at tcp://10\.0\.0\.5:8786 has no workers"):
        DaskCluster(FakeClient({})).check_bots([FOLDER], "none")


def test_many_problems_are_cut_to_twenty_lines() -> None:
    answers = {f"tcp://w{i}:1": [f"problem {i}"] for i in range(25)}
    with pytest.raises(ClusterError) as caught:
        DaskCluster(FakeClient(answers)).check_bots([FOLDER], "none")
    assert str(caught.value).count("\n  worker ") == 20
    assert str(caught.value).endswith("\n  ... and 5 more")


def test_the_cluster_describes_itself(local_cluster: DaskCluster) -> None:
    assert local_cluster.describe() == (
        "executor: dask, a local cluster: 2 workers, 2 threads; match files come back with"
        " each outcome"
    )
    remote = DaskCluster(FakeClient({"tcp://a:1": [], "tcp://b:1": []}))
    remote.shared_folder = Path("/runs/weekly")
    assert remote.describe() == (
        "executor: dask, scheduler tcp://10.0.0.5:8786: 2 workers, 8 threads; matches write"
        " into the shared run folder"
    )
    remote.close()
    remote.close()  # closing twice does nothing


def test_dask_executor_checks_the_bots_and_closes_what_it_opened_on_failure(
    tmp_path: Path, local_cluster: DaskCluster
) -> None:
    (tmp_path / "bot.toml").write_text('name = "c bot"\ncommand = ["build/bot"]\n', "utf-8")
    with pytest.raises(ClusterError, match="'c bot'"):
        dask_executor(play_match, local_cluster.address, 0, manifests=[tmp_path / "bot.toml"])
    executor = dask_executor(
        play_match, local_cluster.address, 0, manifests=[FOLDER], match_deadline_s=60
    )
    with executor:
        assert executor.match_deadline_s == 60
        assert executor.submit(job_for(tmp_path)).result(timeout=120).is_counted
    assert executor.cluster.client.status == "closed"
