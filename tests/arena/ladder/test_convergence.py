"""The ladder's matchmaking against random pairs on simulated bots (the benchmark's
convergence run, ``bench/bench_ladder.py``, at its smallest size)."""

from __future__ import annotations

import importlib.util
import statistics
import sys
from types import ModuleType
from typing import Any

import pytest

from arena.ladder.matchmaking import MatchmakingSettings
from tests import REPO_ROOT


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    path = REPO_ROOT / "bench" / "bench_ladder.py"
    spec = importlib.util.spec_from_file_location("bench_ladder", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_ladder", module)
    spec.loader.exec_module(module)
    return module


def _runs(
    bench: ModuleType, count: int, seeds: int, *, targeted: bool, seats: int = 2
) -> list[Any]:
    return [
        bench.converge(
            count,
            seed,
            targeted=targeted,
            sd=150.0,
            max_games=20_000,
            matchmaking=MatchmakingSettings(),
            seats=seats,
        )
        for seed in range(seeds)
    ]


def _median_hands(bench: ModuleType, count: int, seeds: int, *, targeted: bool) -> float:
    runs = _runs(bench, count, seeds, targeted=targeted)
    assert all(run.hands is not None and run.wrong_claims == 0 for run in runs)
    return float(statistics.median(run.hands for run in runs))


def test_the_ladder_settles_the_top_3_of_10_bots_in_fewer_hands_than_random_pairs(
    bench: ModuleType,
) -> None:
    # Seeded simulation: the same figures every run (2.6x on these 15 seeds, a fit every
    # 3 games as the server's cadence gives: 18,000 hands against 47,400). docs/ladder.md
    # quotes the figure over 100 seeds with its bootstrap interval; 15 seeds cannot tell 2x
    # from 1.5x.
    ladder = _median_hands(bench, 10, 15, targeted=True)
    uniform = _median_hands(bench, 10, 15, targeted=False)
    assert uniform >= 1.5 * ladder, (ladder, uniform)


def test_the_ladder_with_3_seat_tables_settles_the_top_3_of_10_bots_faster_than_random_tables(
    bench: ModuleType,
) -> None:
    # Seeded simulation (a table's scores: centred strengths plus noise): every run ends
    # with the true top 3 at 95% confidence, in 1.7x fewer hands than random tables on
    # these 15 seeds (38,700 against 66,600, a fit every 3 tables; 2.6x with five placement
    # games). A claim at 95% is wrong
    # now and then: two are allowed, so that a change of the rng's draws does not fail the
    # test.
    ladder = _runs(bench, 10, 15, targeted=True, seats=3)
    uniform = _runs(bench, 10, 15, targeted=False, seats=3)
    assert all(run.hands is not None for run in ladder + uniform)
    assert sum(run.wrong_claims for run in ladder + uniform) <= 2
    medians = [statistics.median(run.hands for run in runs) for runs in (ladder, uniform)]
    assert medians[1] >= 1.5 * medians[0], medians


@pytest.mark.slow
def test_the_ladder_settles_the_top_3_of_50_bots_in_a_third_of_the_hands(
    bench: ModuleType,
) -> None:
    ladder = _median_hands(bench, 50, 5, targeted=True)
    uniform = _median_hands(bench, 50, 5, targeted=False)
    assert uniform >= 3.0 * ladder, (ladder, uniform)


def test_the_oracle_plays_each_bot_below_the_top_3_against_the_3rd_then_the_deciding_pairs(
    bench: ModuleType,
) -> None:
    # The reference pairing of the settling runs knows the true order (best first).
    order = [f"b{place}" for place in range(6)]
    games = [bench.oracle_pairing(order, number).bots for number in range(3 + 7)]
    assert games[:3] == [("b3", "b2"), ("b4", "b2"), ("b5", "b2")]
    cycle = [("b0", "b1"), ("b1", "b2"), ("b2", "b3"), ("b1", "b2"), ("b2", "b3"), ("b2", "b4")]
    assert games[3:] == [*cycle, cycle[0]]


@pytest.mark.parametrize(("targeted", "oracle"), [(True, False), (False, False), (False, True)])
def test_the_settling_runs_refit_after_the_batch_of_games_asked_for(
    bench: ModuleType, targeted: bool, oracle: bool
) -> None:
    # The batch models the games the workers finish between two fits: the hands are
    # counted at the refits, so it sets the stopping rules' resolution.
    runs = bench.ladder_runs(
        6,
        0,
        targeted=targeted,
        sd=150.0,
        matchmaking=MatchmakingSettings(),
        batch=3,
        oracle=oracle,
    )
    seen = [next(runs)[:2] for _ in range(2)]
    assert seen == [(3, 600), (6, 1200)]


def test_the_default_batch_models_the_servers_refit_cadence(bench: ModuleType) -> None:
    # The server's cadence (a fit at most 2% of the time, every 0.5 to 5 s) for the modeled
    # fit (51 ms at 10 versions, 354 ms at 1,000), one worker at 1 s a game: a fit after
    # every third game on a small ladder, every fifth (the 5 s cap) on a big one, and more
    # games between fits with more workers.
    assert bench.default_batch(6) == 3 and bench.default_batch(30) == 3
    assert bench.default_batch(39) == 3 and bench.default_batch(40) == 4
    assert bench.default_batch(1000) == 5
    assert bench.default_batch(10, workers=4) == 11
