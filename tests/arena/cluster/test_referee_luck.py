"""A match played in a referee process (the cluster's way) runs the luck estimator there and
brings its adjusted results and the estimator's name back, the same as a match played here."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import luck
from arena.cluster.task import run_in_referee
from arena.cluster.zygote import close_zygote
from arena.tournament.worker import play_match
from tests.arena.cluster.test_referee_task import job_for
from tests.arena.tournament.helpers import STATION


@pytest.fixture(autouse=True)
def stop_the_zygote() -> Iterator[None]:
    yield
    close_zygote()


def test_a_referees_match_brings_back_the_same_adjusted_results(tmp_path: Path) -> None:
    remote = run_in_referee(
        play_match, job_for(tmp_path / "a", (STATION, STATION), luck=True), 120.0
    )
    local = play_match(job_for(tmp_path / "b", (STATION, STATION), luck=True))
    assert remote.is_counted and remote.estimator == local.estimator == luck.ESTIMATOR
    assert all(hand.adjusted is not None for hand in remote.hands)
    assert remote.hands == local.hands  # the floats computed there are the floats here
