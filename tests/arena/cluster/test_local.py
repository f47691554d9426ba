"""The local pool: one match per worker process, a broken pool replaced, an interrupted run
ended at once, and no process or semaphore left behind (SIGTERM included)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import psutil
import pytest

from arena.cluster.executor import default_concurrency
from arena.cluster.local import MAX_POOL_RESTARTS, local_executor
from tests.arena.cluster import helpers as plays
from tests.arena.cluster.helpers import job_for
from tests.arena.tournament.helpers import ROOT


def _wait_for(path: Path, process: subprocess.Popen[str] | None = None) -> None:
    """Until ``path`` exists (a worker started its match); fails after a minute, or when
    ``process`` ended first."""
    deadline = time.monotonic() + 60
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        assert process is None or process.poll() is None, "the host ended first"
        time.sleep(0.05)


def test_matches_are_played_in_worker_processes_and_come_back_in_order(tmp_path: Path) -> None:
    with local_executor(2, plays.quick) as executor:
        assert executor.concurrency == 2
        futures = [executor.submit(job_for(tmp_path, f"m-{i}")) for i in range(4)]
        outcomes = [future.result(timeout=120) for future in futures]
    assert [outcome.match_id for outcome in outcomes] == ["m-0", "m-1", "m-2", "m-3"]
    assert all(outcome.is_counted for outcome in outcomes)
    workers = {path.suffix for path in (tmp_path / "plays").iterdir()}
    assert str(os.getpid()) not in {suffix.lstrip(".") for suffix in workers}


def test_a_worker_killed_mid_match_is_replaced_and_its_matches_played_again(
    tmp_path: Path,
) -> None:
    with local_executor(2, plays.kill_worker_once) as executor:
        futures = [executor.submit(job_for(tmp_path, f"m-{i}")) for i in range(4)]
        outcomes = [future.result(timeout=120) for future in futures]
    assert (tmp_path / "victim-died").exists()  # the pool did break
    assert [outcome.match_id for outcome in outcomes] == ["m-0", "m-1", "m-2", "m-3"]
    assert all(outcome.is_counted for outcome in outcomes)
    played = {path.name.partition(".")[0] for path in (tmp_path / "plays").iterdir()}
    assert played == {"m-0", "m-1", "m-2", "m-3"}


def test_a_pool_that_keeps_breaking_fails_the_match_after_its_restarts(tmp_path: Path) -> None:
    with local_executor(1, plays.kill_worker) as executor:
        future = executor.submit(job_for(tmp_path))
        with pytest.raises(BrokenProcessPool, match="broke 4 times"):
            future.result(timeout=300)
        # A new job gets no pool any more: the restarts are spent.
        with pytest.raises(BrokenProcessPool, match="broke 4 times"):
            executor.submit(job_for(tmp_path, "m-2"))
    assert MAX_POOL_RESTARTS == 3


def test_a_pool_found_broken_at_a_submit_is_replaced_at_once(tmp_path: Path) -> None:
    with local_executor(1, plays.quick) as executor:
        assert executor.submit(job_for(tmp_path, "m-0")).result(timeout=120).is_counted
        # As when a worker has just died and the pool has not yet failed its tasks: the
        # pool refuses the next submit.
        executor._pool._broken = "a worker died just now"  # type: ignore[union-attr]
        assert executor.submit(job_for(tmp_path, "m-1")).result(timeout=120).is_counted
        assert len(executor._retired) == 1


def test_a_block_left_by_an_interrupt_kills_the_workers_instead_of_waiting(
    tmp_path: Path,
) -> None:
    executor = local_executor(1, plays.stall)
    with pytest.raises(KeyboardInterrupt), executor:
        future = executor.submit(job_for(tmp_path))
        _wait_for(tmp_path / "started")
        raise KeyboardInterrupt
    # Its worker was killed mid-match: no outcome (waiting would have brought one).
    assert isinstance(future.exception(timeout=0), BrokenProcessPool)


def test_a_closed_pool_takes_no_match_and_closing_twice_does_nothing(tmp_path: Path) -> None:
    executor = local_executor(1, plays.quick)
    executor.close()  # no match was ever submitted: no pool was started
    executor.close()
    with pytest.raises(RuntimeError, match="after the executor was closed"):
        executor.submit(job_for(tmp_path))


def test_a_pool_needs_a_worker_and_default_concurrency_is_positive() -> None:
    assert default_concurrency() >= 1
    with pytest.raises(ValueError, match="at least one worker, got 0"):
        local_executor(0, plays.quick)


def test_a_worker_whose_host_is_already_gone_leaves_at_once() -> None:
    # die_with_parent(pid) exits when its parent is not pid (the host died before the prctl).
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "from arena.cluster.executor import die_with_parent; die_with_parent(1); "
            "print('still here')",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 1 and "still here" not in completed.stdout


HOST = """
import sys
from pathlib import Path

from arena.cluster.local import local_executor
from tests.arena.cluster import helpers as plays

try:
    with local_executor(1, plays.stall) as executor:
        executor.submit(plays.job_for(Path(sys.argv[1]))).result()
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def test_sigterm_of_a_host_ends_its_pool_at_once_and_leaks_no_semaphore(tmp_path: Path) -> None:
    # Killed outright by SIGTERM, the host would leave its pool's semaphores to
    # multiprocessing's resource tracker, which warns "leaked semaphore objects".
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    family: list[psutil.Process] = []
    try:
        _wait_for(tmp_path / "started", host)
        family = psutil.Process(host.pid).children(recursive=True)  # worker, tracker
        host.send_signal(signal.SIGTERM)
        out, err = host.communicate(timeout=60)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert (host.returncode, out) == (130, "interrupted\n"), err
    assert "leaked" not in err, err
    _gone, alive = psutil.wait_procs(family, timeout=10)
    assert not alive, f"outlived their host: {alive}"
