"""A Dask worker killed in the middle of a match, on the executor: the worker's zygote,
referee and bots die with it, and Dask plays the match again on the other worker, from its
first hand, to the outcome it would have had. (``make test-long`` also checks this through
``arena tournament --executor dask``, in tests/arena/cluster/test_dask_command.py.)

The test has a local cluster of its own, since it kills one of its workers.
"""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from arena.cluster.dask_executor import DaskCluster
from arena.cluster.job import MatchJob
from arena.match.config import MatchConfig
from arena.tournament.worker import play_match
from tests.arena.cluster.helpers import WorkerKiller, slow_bot
from tests.arena.tournament.helpers import STATION

pytestmark = pytest.mark.allow_error_logs


def test_a_worker_killed_mid_match_takes_its_bots_and_the_match_is_played_again(
    tmp_path: Path,
) -> None:
    slow = slow_bot(tmp_path)
    config = MatchConfig(hand_count=6, seed=5, match_id="m-1")
    # Under the limits layer the bots' supervisors die with their referee.
    job = MatchJob("m-1", config, ("slow", "station"), (slow, STATION), "limits", tmp_path / "run")
    cluster = DaskCluster.start(None, 2)
    killer = WorkerKiller()
    try:
        cluster.check_bots([slow, STATION], "limits")  # each worker's zygote starts now
        killer.start()
        with cluster.executor(play_match) as executor:
            outcome = executor.submit(job).result(timeout=300)
    finally:
        killer.stop.set()
        killer.join()
        cluster.close()  # (the executor closed it already, unless it failed to start)
    assert killer.killed_worker is not None, "no match was caught in the middle"
    # The worker's zygote, its referee and the bots died with it.
    _gone, alive = psutil.wait_procs(killer.victims, timeout=10)
    assert not alive, f"outlived their killed worker: {alive}"
    local = play_match(MatchJob("m-1", config, job.bots, job.manifests, "limits", tmp_path / "l"))
    assert outcome.is_counted and outcome.hands == local.hands
    assert [seat.chips_won for seat in outcome.seats] == [seat.chips_won for seat in local.seats]
