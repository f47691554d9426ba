"""The ladder's matchmaking against random pairs on simulated bots (the benchmark's
convergence run, ``bench/bench_ladder.py``, at its smallest size)."""

from __future__ import annotations

import importlib.util
import statistics
import sys
from types import ModuleType

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


def _median_hands(bench: ModuleType, count: int, seeds: int, *, targeted: bool) -> float:
    runs = [
        bench.converge(
            count,
            seed,
            targeted=targeted,
            sd=150.0,
            max_games=20_000,
            matchmaking=MatchmakingSettings(),
        )
        for seed in range(seeds)
    ]
    assert all(run.hands is not None and run.wrong_claims == 0 for run in runs)
    return float(statistics.median(run.hands for run in runs))


def test_the_ladder_settles_the_top_3_of_10_bots_in_half_the_hands_of_random_pairs(
    bench: ModuleType,
) -> None:
    # Seeded simulation: the same figures every run (2.4x on these 15 seeds).
    ladder = _median_hands(bench, 10, 15, targeted=True)
    uniform = _median_hands(bench, 10, 15, targeted=False)
    assert uniform >= 2.0 * ladder, (ladder, uniform)


@pytest.mark.slow
def test_the_ladder_settles_the_top_3_of_50_bots_in_a_third_of_the_hands(
    bench: ModuleType,
) -> None:
    ladder = _median_hands(bench, 50, 5, targeted=True)
    uniform = _median_hands(bench, 50, 5, targeted=False)
    assert uniform >= 3.0 * ladder, (ladder, uniform)
