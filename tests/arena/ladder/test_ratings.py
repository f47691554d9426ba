"""The ladder's ratings (:mod:`arena.ladder.ratings`)."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random

import numpy as np
import pytest

from arena.ladder import fit_numerics, ratings
from arena.ladder.games import GameResult
from arena.ladder.ratings import FitSettings, Standings, fit
from arena.ladder.sums import pair_sums

TRUTH = {"ann": 120.0, "bob": 40.0, "cat": -30.0, "dan": -130.0}


def _games(rng: random.Random, per_pair: int, sd: float = 150.0) -> list[GameResult]:
    names = list(TRUTH)
    games = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            for _ in range(per_pair):
                score = rng.gauss(TRUTH[first] - TRUTH[second], sd)
                games.append(GameResult(first, second, score, score, 200))
    return games


def test_ratings_recover_known_strengths_from_synthetic_games() -> None:
    standings = fit(pair_sums(_games(random.Random(3), per_pair=60)))
    assert standings.order == ("ann", "bob", "cat", "dan")
    for rating in standings.ratings:
        assert rating.strength == pytest.approx(TRUTH[rating.bot], abs=3 * rating.sd)
        assert rating.sd < 15.0
    # Strengths are against the field's average: they sum to 0.
    assert math.fsum(r.strength for r in standings.ratings) == pytest.approx(0.0, abs=1e-6)
    assert [r.place for r in standings.ratings] == [1, 2, 3, 4]


def test_intervals_cover_the_true_strength_about_95_percent_of_the_time() -> None:
    rng = random.Random(11)
    covered = total = 0
    for _ in range(100):
        standings = fit(pair_sums(_games(rng, per_pair=4)))
        for rating in standings.ratings:
            total += 1
            covered += rating.low <= TRUTH[rating.bot] <= rating.high
    assert 0.90 <= covered / total <= 0.99


def test_a_bot_is_rated_against_opponents_it_never_met() -> None:
    # ann only met bob, cat only met bob: ann vs cat comes through bob.
    games = [GameResult("ann", "bob", 100.0 + d, 0.0, 200) for d in (-20.0, 0.0, 20.0)]
    games += [GameResult("bob", "cat", 50.0 + d, 0.0, 200) for d in (-20.0, 0.0, 20.0)]
    standings = fit(pair_sums(games))
    assert standings.strength("ann") - standings.strength("cat") == pytest.approx(150.0, abs=1.0)
    assert standings.chance_above("ann", "cat") > 0.99
    # The difference's variance adds both links' (the covariance is used, not each sd alone).
    link = standings.difference_variance("ann", "bob")
    assert standings.difference_variance("ann", "cat") == pytest.approx(
        link + standings.difference_variance("bob", "cat"), rel=0.01
    )


def test_a_version_without_games_is_at_the_average_with_a_very_wide_interval() -> None:
    standings = fit(pair_sums(_games(random.Random(5), per_pair=5)), bots=["new"])
    new = standings.rating("new")
    assert new.strength == pytest.approx(0.0, abs=1e-9) and new.game_count == 0
    assert new.high - new.low > 3000.0
    assert 0.4 < standings.chance_above("ann", "new") < 0.6


def test_the_chance_above_next_follows_the_gap_and_the_games() -> None:
    standings = fit(pair_sums(_games(random.Random(7), per_pair=30)))
    chances = standings.chances_above_next()
    assert len(chances) == 3 and all(chance > 0.99 for chance in chances)
    few = fit(pair_sums(_games(random.Random(7), per_pair=2)))
    assert min(few.chances_above_next()) < min(chances)


def test_a_pair_whose_games_agree_is_not_taken_as_certain() -> None:
    # Two identical games and a noisy pair: the identical ones' variance is shrunk towards
    # the pooled spread instead of being 0 (which would give an infinite weight).
    games = [GameResult("ann", "bob", 50.0, 0.0, 200) for _ in range(2)]
    games += [GameResult("bob", "cat", m, 0.0, 200) for m in (-200.0, 100.0, 250.0, -50.0)]
    standings = fit(pair_sums(games))
    assert 0.5 < standings.chance_above("ann", "bob") < 0.99
    assert standings.game_sd > 100.0


def test_without_two_games_in_any_pair_the_fallback_spread_is_used() -> None:
    standings = fit(pair_sums([GameResult("ann", "bob", 80.0, 0.0, 200)]))
    assert standings.game_sd == FitSettings().fallback_game_sd_mbb
    assert standings.strength("ann") > 0.0 > standings.strength("bob")


def test_standings_name_an_unknown_bot_and_export_their_ratings() -> None:
    standings = fit(pair_sums(_games(random.Random(1), per_pair=3)))
    with pytest.raises(KeyError, match="'zed' is not in the standings"):
        standings.rating("zed")
    assert "zed" not in standings and "ann" in standings
    exported = standings.to_dict()
    assert [row["bot"] for row in exported["ratings"]] == list(standings.order)
    assert exported["ratings"][-1]["chance_above_next"] is None
    assert exported["ratings"][0]["chance_above_next"] == standings.chances_above_next()[0]


def test_no_games_and_no_bots_is_an_empty_table() -> None:
    standings = fit({})
    assert standings.ratings == () and standings.chances_above_next() == ()


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"confidence": 1.0}, "confidence must be between 0 and 1"),
        ({"prior_sd_mbb": 0.0}, "prior_sd_mbb must be a positive number"),
        ({"fallback_game_sd_mbb": math.inf}, "fallback_game_sd_mbb must be a positive"),
        ({"variance_prior_games": -1.0}, "variance_prior_games must be 0 or more"),
    ],
)
def test_bad_fit_settings_are_refused_naming_the_setting(
    fields: dict[str, float], named: str
) -> None:
    with pytest.raises(ValueError, match=named):
        FitSettings(**fields)


def test_a_bots_place_is_looked_up_by_name_and_an_unfitted_bot_has_none() -> None:
    games = [GameResult("ann", "bob", m, m, 200) for m in (90.0, 110.0)]
    standings = fit(pair_sums(games), bots=("cat",))
    assert [standings.place_of(bot) for bot in standings.order] == [1, 2, 3]
    assert standings.place_of("ann") == 1 and standings.place_of("dan") is None


def test_one_pair_played_far_more_does_not_make_the_pooled_spread_its_own() -> None:
    # ann-bob played 200 quiet games (SD about 20); five other pairs played three noisy
    # games each (SD about 300). Counting each pair by its degrees of freedom, the quiet
    # pair would set the pooled spread (about 60) and so the prior of every pair that
    # played little; capped at variance_prior_games each, the noisy pairs weigh as much.
    rng = random.Random(2)
    games = [GameResult("ann", "bob", rng.gauss(0.0, 20.0), 0.0, 200) for _ in range(200)]
    for first, second in (
        ("ann", "cat"),
        ("bob", "cat"),
        ("cat", "dan"),
        ("ann", "dan"),
        ("bob", "dan"),
    ):
        games += [GameResult(first, second, rng.gauss(0.0, 300.0), 0.0, 200) for _ in range(3)]
    capped = fit(pair_sums(games))
    uncapped = fit(pair_sums(games), settings=FitSettings(variance_prior_games=0.0))
    assert uncapped.game_sd < 80.0 < 150.0 < capped.game_sd


def test_intervals_are_widened_to_students_t_of_the_pooled_spreads_freedom() -> None:
    # Two pairs of two games (two degrees of freedom in the pooled spread): the interval's
    # half-width is t(0.975, 2) = 4.30 standard errors of the model, not 1.96.
    games = [GameResult("ann", "bob", m, 0.0, 200) for m in (90.0, 110.0)]
    games += [GameResult("bob", "cat", m, 0.0, 200) for m in (40.0, 60.0)]
    standings = fit(pair_sums(games))
    plain = fit(pair_sums(games), settings=FitSettings(confidence=0.6827))
    # The same fit at another confidence widens by its own t: the ratio of the two
    # half-widths is t(0.975, 2) / t(0.84135, 2) = 4.303 / 1.321.
    ann, ann_plain = standings.rating("ann"), plain.rating("ann")
    assert ann.strength == ann_plain.strength
    width, width_plain = ann.high - ann.strength, ann_plain.high - ann_plain.strength
    assert width / width_plain == pytest.approx(4.3027 / 1.3213, rel=1e-3)
    # Against the model's own variance: a path ann-bob-cat of weight w = 2 games / 200 (the
    # pooled variance) has Var(s_ann) = 5 / (9 w) (the Laplacian's pseudo-inverse), and
    # the standard error shown is its root times t / z.
    model_sd = math.sqrt(5.0 / (9.0 * 2.0 / 200.0))
    assert ann.sd == pytest.approx(model_sd * 4.3027 / 1.95996, rel=1e-4)


def test_standings_read_back_from_storage_give_the_fits_gaps_for_the_kept_pairs() -> None:
    standings = fit(pair_sums(_games(random.Random(9), per_pair=5)))
    order = standings.order
    kept = {(a, b): standings.covariance(a, b) for a, b in itertools.pairwise(order)}
    # What a fit stores: each bot's covariance with the next in the order (none after the last).
    assert standings.covariances_below(order, 1) == [[value] for value in kept.values()] + [[]]
    # Stored in another order, places as stored are ignored: read back by strength.
    shuffled = [dataclasses.replace(rating, place=0) for rating in reversed(standings.ratings)]
    stored = Standings.from_stored(
        shuffled, kept, game_sd=standings.game_sd, confidence=standings.confidence
    )
    assert stored.order == order
    assert [rating.place for rating in stored.ratings] == [1, 2, 3, 4]
    for first, second in kept:
        assert stored.gap(first, second) == pytest.approx(standings.gap(first, second))
    # A pair not kept has no covariance: its variance is the two variances' sum.
    far = stored.difference_variance(order[0], order[-1])
    assert far == pytest.approx(
        standings.rating(order[0]).sd ** 2 + standings.rating(order[-1]).sd ** 2
    )
    # A kept pair naming a bot not stored is left out.
    assert "zed" not in Standings.from_stored(
        shuffled, {("zed", order[0]): 1.0}, game_sd=1.0, confidence=0.95
    )


def test_a_big_ladder_s_factored_covariance_is_the_full_inverse_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Above DENSE_UP_TO bots the fit keeps the inverse Cholesky factor, not the matrix:
    # every figure read from it must be the full inverse's (to rounding).
    games = [*_games(random.Random(21), per_pair=3), GameResult("dan", "eve", 10.0, 5.0, 200)]
    dense = fit(pair_sums(games), bots=["new"])
    monkeypatch.setattr(ratings, "DENSE_UP_TO", 0)
    monkeypatch.setattr(fit_numerics, "_BLOCK", 2)  # the factor inverted by halves, as a big one
    factored = fit(pair_sums(games), bots=["new"])
    assert factored.order == dense.order
    for mine, theirs in zip(factored.ratings, dense.ratings, strict=True):
        assert mine.strength == pytest.approx(theirs.strength, rel=1e-9, abs=1e-9)
        assert mine.sd == pytest.approx(theirs.sd, rel=1e-9)
    for first, second in itertools.combinations(dense.order, 2):
        assert factored.gap(first, second) == pytest.approx(dense.gap(first, second), rel=1e-9)
    # The pairs' gaps worked out at once (a fit's candidates and chances) are the same.
    primed = fit(pair_sums(games), bots=["new"])
    pairs = list(itertools.combinations(dense.order, 2))
    primed.prime_gaps(pairs)
    assert len(primed._gaps) == len(pairs)
    for first, second in pairs:
        assert primed.gap(first, second) == pytest.approx(dense.gap(first, second), rel=1e-9)
    dense.prime_gaps(pairs)  # a matrix kept whole answers pair by pair: nothing primed
    order = list(dense.order)
    for mine_row, dense_row in zip(
        factored.covariances_below(order, 3), dense.covariances_below(order, 3), strict=True
    ):
        assert mine_row == pytest.approx(dense_row, rel=1e-9, abs=1e-9)


def test_standings_read_back_from_a_band_are_the_ones_read_back_from_pairs() -> None:
    standings = fit(pair_sums(_games(random.Random(9), per_pair=5)), bots=["new"])
    order = list(standings.order)
    below = standings.covariances_below(order, 2)
    kept = {(bot, other): value for k, bot in enumerate(order)
            for other, value in zip(order[k + 1 :], below[k], strict=False)}  # fmt: skip
    band = np.zeros((len(order), 2))
    for row, values in enumerate(below):
        band[row, : len(values)] = values
    # "dan" left the ladder since (not read back); "eve" came since (no stored row).
    ratings = [r for r in standings.ratings if r.bot != "dan"]
    ratings.append(dataclasses.replace(ratings[0], bot="eve", strength=0.0))
    rows = [order.index(r.bot) if r.bot != "eve" else -1 for r in ratings]
    settings = {"game_sd": standings.game_sd, "confidence": standings.confidence}
    banded = Standings.from_band(ratings, rows, band, **settings)
    paired = Standings.from_stored(ratings, kept, **settings)
    assert banded.order == paired.order
    assert [r.place for r in banded.ratings] == [r.place for r in paired.ratings]
    for first, second in itertools.combinations(paired.order, 2):
        assert banded.gap(first, second) == paired.gap(first, second)
    # Worked out at once (a fit's candidates), a band's gaps are the same to the bit,
    # both ways round, with a version outside the band ("eve") and pairs beyond it.
    primed = Standings.from_band(ratings, rows, band, **settings)
    pairs = list(itertools.permutations(paired.order, 2))
    primed.prime_gaps(pairs)
    assert len(primed._gaps) == len(pairs)
    assert [primed.gap(*pair) for pair in pairs] == [paired.gap(*pair) for pair in pairs]
    names = list(paired.order)
    assert banded.covariances_below(names, 3) == paired.covariances_below(names, 3)


def _triangle(third: float) -> list[GameResult]:
    # ann-bob and bob-cat played two games each (a pooled spread to shrink towards), and
    # ann-cat one game whose score either agrees with the path through bob or does not.
    games = [GameResult("ann", "bob", m, 0.0, 200) for m in (90.0, 110.0)]
    games += [GameResult("bob", "cat", m, 0.0, 200) for m in (90.0, 110.0)]
    return [*games, GameResult("ann", "cat", third, 0.0, 200)]


def test_a_pair_far_from_the_fitted_strengths_widens_the_intervals() -> None:
    # The same games' spread, so the same shrunk variances and weights: only ann-cat's
    # residual differs. Its score agreeing with the path through bob (+200) leaves no
    # residual and the intervals a little narrower than the shrunk variances alone say;
    # one that contradicts it (-200) is a sign the pairs vary more than their games show.
    agreeing, contradicting = fit(pair_sums(_triangle(200.0))), fit(pair_sums(_triangle(-200.0)))
    unchecked_sd = agreeing.rating("ann").sd
    assert contradicting.rating("ann").sd > 1.5 * unchecked_sd
    assert agreeing.game_sd == contradicting.game_sd  # the pooled spread is the games'


def test_the_checked_variance_adds_the_residual_with_one_minus_leverage_degrees() -> None:
    # One pair, one game (no spread of its own), the prior of 10 games at a pooled 100:
    # its residual of 10 with leverage 0.5 adds 100 squared units over half a degree, so the
    # checked variance is (10 * 100 + 100) / 10.5 and the shrunk one 100.
    one = np.array([1.0])
    scale = fit_numerics.checked_scale(
        one, one, np.zeros(1), np.array([10.0]), np.array([0.5]), np.array([100.0]), 100.0,
        FitSettings(),
    )  # fmt: skip
    assert scale == pytest.approx(1100.0 / 10.5 / 100.0)


def test_ring_table_comparisons_and_an_empty_fit_are_not_checked() -> None:
    # A table's pair comparisons add up exactly, so their residuals understate the noise:
    # a pair with less information than games keeps its shrunk variance (the pooled one,
    # with no prior and one game), whatever its residual.
    half, one = np.array([0.5]), np.array([1.0])
    settings = FitSettings(variance_prior_games=0.0)
    assert fit_numerics.checked_scale(
        one, half, np.zeros(1), np.array([500.0]), np.array([0.5]), np.array([100.0]), 100.0,
        settings,
    ) == pytest.approx(1.0)  # fmt: skip
    none = np.zeros(0)
    assert fit_numerics.checked_scale(none, none, none, none, none, none, 100.0, settings) == 1.0
