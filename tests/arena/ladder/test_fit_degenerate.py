"""The fit never fails on real data: every degenerate history (no spread within a pair,
identical bots, one game, a version with no game, results perfectly separated) gives
finite ratings with honest, positive intervals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.ladder.games import GameResult
from arena.ladder.ratings import FitSettings, Standings, fit
from arena.ladder.sums import PairSums, pair_sums

_BOTS = ("ann", "bob", "cat", "dan")


def _honest(standings: Standings) -> None:
    """Every rating finite, with a positive interval around its strength."""
    for rating in standings.ratings:
        assert math.isfinite(rating.strength) and math.isfinite(rating.sd)
        assert rating.sd > 0.0 and rating.low < rating.strength < rating.high
    for chance in standings.chances_above_next():
        assert 0.0 <= chance <= 1.0


def test_two_identical_bots_scoring_every_game_alike_get_equal_ratings_with_wide_intervals() -> (
    None
):
    # Two copies of one bot: every game 0.0 (the case that made the old Cholesky step
    # raise "not positive definite" at the second game and stopped the ladder).
    standings = fit(pair_sums([GameResult("ann", "bob", 0.0, 0.0, 8)] * 20))
    _honest(standings)
    assert standings.strength("ann") == standings.strength("bob") == 0.0
    # No spread seen: the fallback spread of one game is the prior, not certainty.
    assert standings.rating("ann").sd > 10.0


def test_identical_nonzero_scores_leave_rounding_noise_that_the_floor_absorbs() -> None:
    # 0.1 summed and squared leaves a sample variance of ~1e-17, not 0: without the floor
    # the pair's weight would be ~1e34 and swamp the prior's ridge.
    games = [GameResult("ann", "bob", 0.1, 0.1, 8)] * 50 + [GameResult("bob", "cat", 5.0, 5.0, 8)]
    standings = fit(pair_sums(games))
    _honest(standings)
    assert standings.order == ("ann", "bob", "cat")


def test_a_pair_with_one_game_and_a_version_with_none_are_rated() -> None:
    standings = fit(pair_sums([GameResult("ann", "bob", 300.0, 300.0, 8)]), bots=["new"])
    _honest(standings)
    assert standings.strength("new") == pytest.approx(0.0, abs=1e-9)
    assert standings.rating("new").sd > standings.rating("ann").sd


def test_perfectly_separated_results_give_a_finite_gap() -> None:
    games = [GameResult("ann", "bob", 1000.0 + k % 2, 1000.0, 8) for k in range(30)]
    standings = fit(pair_sums(games))
    _honest(standings)
    assert standings.chance_above("ann", "bob") > 0.999


def test_an_empty_pair_counts_for_nothing() -> None:
    assert fit({("ann", "bob"): PairSums("ann", "bob")}).strength("ann") == 0.0


_SCORES = st.one_of(
    st.sampled_from([0.0, 0.1, -0.1, 1e-9, 1000.0, -1000.0]),
    st.floats(-5000.0, 5000.0, allow_nan=False),
)


@st.composite
def _histories(draw: st.DrawFn) -> list[GameResult]:
    """Few bots, games often repeating one score (no spread), sometimes one game a pair."""
    count = draw(st.integers(0, 40))
    repeat = draw(_SCORES)
    games = []
    for _ in range(count):
        first, second = draw(st.lists(st.sampled_from(_BOTS), min_size=2, max_size=2, unique=True))
        score = repeat if draw(st.booleans()) else draw(_SCORES)
        weight = draw(st.sampled_from([1.0, 0.5, 2 / 3]))
        games.append(GameResult(first, second, score, score, 8, weight=weight))
    return games


@settings(max_examples=150, deadline=None)
@given(_histories(), st.sampled_from([0.0, 10.0]))
def test_any_history_gives_finite_ratings_with_positive_intervals(
    games: list[GameResult], prior_games: float
) -> None:
    standings = fit(
        pair_sums(games), bots=_BOTS, settings=FitSettings(variance_prior_games=prior_games)
    )
    _honest(standings)
    assert set(standings.order) == set(_BOTS)
    # The strengths are against the field's average: they sum to 0.
    assert abs(sum(standings.strength(bot) for bot in _BOTS)) < 1e-6 * (
        1.0 + max(abs(standings.strength(bot)) for bot in _BOTS)
    )


def test_the_floor_must_be_a_positive_number() -> None:
    with pytest.raises(ValueError, match="min_game_sd_mbb"):
        FitSettings(min_game_sd_mbb=0.0)
