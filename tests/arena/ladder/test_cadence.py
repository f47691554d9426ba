"""The ladder's refit cadence: the interval between two fits follows the last fit's cost."""

from __future__ import annotations

import math

import pytest

from arena.ladder.cadence import FitCadence


def test_the_interval_keeps_the_fit_to_its_share_of_the_time_between_its_bounds() -> None:
    cadence = FitCadence(fit_share=0.02, min_interval_s=0.5, max_interval_s=5.0)
    # 50 ms of fit at 2%: every 2.5 s.
    assert cadence.interval_s(0.05) == pytest.approx(2.5)
    # A fit that costs nothing measurable still waits the shortest interval...
    assert cadence.interval_s(0.0) == 0.5
    # ...and a thousand versions' (0.3 s) the longest: the pages' ratings lag no more.
    assert cadence.interval_s(0.3) == 5.0


@pytest.mark.parametrize("duration", [-1.0, math.nan, math.inf])
def test_a_duration_that_is_no_duration_gives_the_longest_interval(duration: float) -> None:
    assert FitCadence().interval_s(duration) == FitCadence().max_interval_s


def test_the_games_between_fits_are_the_workers_games_of_one_interval_rounded_up() -> None:
    cadence = FitCadence()
    # One worker at 1 s a game and a 50 ms fit: a fit after every third game.
    assert cadence.games_between_fits(0.05, workers=1, game_s=1.0) == 3
    # Exactly two games in the interval are two, not three (no rounding noise).
    assert cadence.games_between_fits(0.02, workers=1, game_s=0.5) == 2
    # Slow games: still one game between fits, never none.
    assert cadence.games_between_fits(0.0, workers=1, game_s=60.0) == 1
    assert cadence.games_between_fits(0.3, workers=10, game_s=1.0) == 50


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"fit_share": 0.0}, "fit_share"),
        ({"fit_share": 1.5}, "fit_share"),
        ({"min_interval_s": -1.0}, "min_interval_s"),
        ({"max_interval_s": math.inf}, "max_interval_s"),
        ({"min_interval_s": 6.0, "max_interval_s": 5.0}, "min_interval_s"),
    ],
)
def test_a_bad_cadence_is_refused_naming_the_value(arguments: dict[str, float], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        FitCadence(**arguments)


@pytest.mark.parametrize(
    ("workers", "game_s", "named"),
    [(0, 1.0, "workers"), (1, 0.0, "game_s"), (1, math.nan, "game_s")],
)
def test_a_bad_model_of_the_workers_is_refused_naming_the_value(
    workers: int, game_s: float, named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        FitCadence().games_between_fits(0.05, workers=workers, game_s=game_s)
