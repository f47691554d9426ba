"""The ladder's ratings: one strength per bot version, fitted to every pair's results, each
with its interval, and the chance that a bot is really above the next.

Theory of operation. The model is additive: a bot ``a`` has a strength ``s_a`` in mbb/hand
and the expected score of ``a`` against ``b`` is ``s_a - s_b``. Each pair that played gives
its mean score (luck-adjusted mbb/hand over its games) and that mean's variance; the
strengths are the weighted least-squares fit of all the pairs' means, each weighed by the
inverse of its variance, so a pair that played many games counts more, and a bot is rated
even against opponents it never met (through the ones they both met). Four choices:

* The margin counts, not only who won: a pair's mean in mbb/hand carries far more
  information per game than a win or a loss (Elo's input), and it is what poker is scored by.
* A pair's variance is its sample variance shrunk towards the variance pooled over all
  pairs (as if ``variance_prior_games`` more games had the pooled spread): two games that
  happen to agree do not make a pair look certain, and a pair's weight does not lean on
  its own few games (weights from noisy variances overstate what the pairs know, and the
  intervals then cover less than they say). In the pooled spread no pair counts for more
  than ``variance_prior_games`` games: it is the prior of the pairs that played little, so
  one pair played far more than the rest must not make it its own.
* The pooled spread is estimated, so the covariance is widened by ``(t / z)^2``, Student's
  t of its degrees of freedom over the normal quantile at the fit's confidence: the
  intervals and chances read from it with the normal have the t's width.
* The covariance is checked against the pairs' residuals
  (:func:`arena.ladder.fit_numerics.checked_scale`): a heads-up pair's distance from the
  fitted strengths, squared, is one more measure of its variance (``1 - h`` degrees of
  freedom, ``h`` its leverage) and the only one its weight was not built on. Each pair's
  variance is worked out again with it, and the covariance scaled by the new variances'
  ratio to the shrunk ones, averaged by leverage: with a game or two a pair, where every
  pair has the pooled spread, it is what tells a fit whose pairs differ from one whose
  pairs agree. ``bench/bench_coverage.py`` measures the coverage under uniform, targeted
  and adversarial pairing (docs/ladder.md quotes it).
* A weak normal prior on each strength (mean 0, standard deviation ``prior_sd_mbb``) keeps
  the fit defined when the results do not connect every bot (a new version with no game
  yet: strength 0, a very wide interval). With it the strengths sum to 0 exactly: a
  strength is the expected score against the field's average bot.

* No history breaks the fit: a pair's variance of one game is never below
  ``min_game_sd_mbb`` squared (and a pooled spread below it is no measurement: the
  fallback is used), so two copies of one bot that score every game alike, a pair with one
  game, a version with no game or a pair whose results never overlap all give finite
  ratings with honest intervals. ``tests/arena/ladder/test_fit_degenerate.py`` tries them.

The fit reads each pair's running sums (:class:`arena.ladder.sums.PairSums`), never its
games, so its cost is the pairs' count plus one dense inverse (numpy; 1,000 bots in a
fraction of a second, ``bench/bench_ladder_scale.py``). It solves ``M s = b`` with
``M = sum over pairs of w (e_a - e_b)(e_a - e_b)^T + I / prior_sd^2`` and
``b = sum of w * mean * (e_a - e_b)``; the strengths' covariance is ``M^-1`` less the
prior's shift of all of them together (the strengths sum to 0), times the t's and the
residual check's factors. The interval of a strength is ``s +- z * sd`` (normal quantile),
and the chance that ``a`` is really above ``b`` is
``Phi((s_a - s_b) / sqrt(Var(s_a - s_b)))`` with the covariance (the two estimates are
correlated when they share opponents).

Ring tables. A table of ``n`` bots reaches the fit as its ``n(n-1)/2`` pair comparisons
(:meth:`arena.ladder.games.TableResult.pairwise`), each carrying ``2 / n`` of a heads-up
game's information (the comparisons of one table share its noise; the games module's
docstring derives the share). So a pair's weight is its ``information`` (the sum of its
games' weights; the game count when all are heads-up) over the variance of one of its
games, not its game count over it, and its mean is the weights' mean of its games (the
plain mean when all weigh the same: heads-up ladders get the same numbers as before). A
pair's variance of one game is still measured from its games' spread, shrunk as above.

>>> from arena.ladder.games import GameResult
>>> from arena.ladder.sums import pair_sums
>>> games = [GameResult("ann", "bob", m, m, 200) for m in (90.0, 110.0, 100.0)]
>>> standings = fit(pair_sums(games))
>>> [(r.bot, round(r.strength, 1)) for r in standings.ratings]
[('ann', 50.0), ('bob', -50.0)]
>>> round(standings.chance_above("ann", "bob"), 3)
1.0
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.ladder.covariance import StrengthCovariance
from arena.ladder.fit_numerics import (
    checked_scale,
    inverse_cholesky,
    pooled_variance,
    shrunk_variance,
)
from arena.ladder.sums import PairColumns, PairSums
from arena.stats.intervals import t_quantile

__all__ = ["DENSE_UP_TO", "FitSettings", "Rating", "Standings", "fit"]

_NORMAL = NormalDist()


@dataclass(frozen=True, slots=True)
class FitSettings:
    """How the strengths are fitted (see the module docstring). A bad value raises
    ``ValueError`` naming it."""

    confidence: float = 0.95
    prior_sd_mbb: float = 1000.0
    variance_prior_games: float = 10.0
    #: The spread of one game's score before any pair has two games to measure it by.
    fallback_game_sd_mbb: float = 1000.0
    #: The least spread of one game's score the fit believes (a pair's, and the pooled
    #: one's: below it the fallback is used): games that all agree, as two copies of one
    #: bot score, would otherwise weigh without bound and break the fit's arithmetic.
    min_game_sd_mbb: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 < self.confidence < 1.0:
            raise ValueError(f"confidence must be between 0 and 1, got {self.confidence!r}")
        for name in ("prior_sd_mbb", "fallback_game_sd_mbb", "min_game_sd_mbb"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0.0 < value < math.inf):
                raise ValueError(f"{name} must be a positive number of mbb/hand, got {value!r}")
        value = self.variance_prior_games
        if not (isinstance(value, int | float) and 0.0 <= value < math.inf):
            raise ValueError(f"variance_prior_games must be 0 or more, got {value!r}")


@dataclass(frozen=True, slots=True)
class Rating:
    """One bot's fitted strength in mbb/hand against the field's average, its standard
    error and interval, its rated games, and its place (1 the best).

    >>> Rating("ann", 1, 40.0, 10.0, 20.4, 59.6, 12).to_dict()["low"]
    20.4
    """

    bot: str
    place: int
    strength: float
    sd: float
    low: float
    high: float
    game_count: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Standings:
    """The fitted ratings, best first, with the covariance of the strengths (for the chance
    that one bot is above another) and the pooled spread of one game's score."""

    ratings: tuple[Rating, ...]
    game_sd: float
    confidence: float
    _index: Mapping[str, int] = field(repr=False)
    #: Rows in name order (not place order); a band of it when read back from storage
    #: (:meth:`from_stored`: the entries beyond the band are 0).
    _covariance: StrengthCovariance = field(repr=False)
    _strengths: tuple[float, ...] = field(repr=False)
    #: Memo of :meth:`gap`: matchmaking asks for the same neighbours at every decision.
    _gaps: dict[tuple[str, str], tuple[float, float]] = field(
        default_factory=dict, repr=False, compare=False
    )
    #: Memo of :meth:`place_of` (filled at its first call).
    _places: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def order(self) -> tuple[str, ...]:
        """The bots' names, best first."""
        return tuple(rating.bot for rating in self.ratings)

    def rating(self, bot: str) -> Rating:
        """The rating of ``bot``; a bot not fitted raises ``KeyError`` naming it."""
        place = self.place_of(bot)
        if place is None:
            raise KeyError(f"bot {bot!r} is not in the standings")
        return self.ratings[place - 1]

    def covariances_below(self, order: Sequence[str], count: int) -> list[list[float]]:
        """For each bot of ``order``, its covariance with each of the ``count`` bots just
        after it there (fewer at the end): what a stored fit keeps (:meth:`from_stored`),
        read in one pass."""
        return self._covariance.band([self._position(bot) for bot in order], count)

    def place_of(self, bot: str) -> int | None:
        """The place of ``bot`` (1 the best), None when it is not fitted; remembered, so
        matchmaking's many look-ups cost one pass over the standings."""
        places = self._places
        if not places and self.ratings:
            places.update((rating.bot, rating.place) for rating in self.ratings)
        return places.get(bot)

    @classmethod
    def from_stored(
        cls,
        ratings: Iterable[Rating],
        covariances: Mapping[tuple[str, str], float],
        *,
        game_sd: float,
        confidence: float,
    ) -> Standings:
        """Standings read back from a stored fit: its ratings (placed again among
        themselves, by strength) and the covariances kept of some pairs (the neighbours in
        the standings: what matchmaking asks :meth:`gap` of); a pair not kept has none."""
        kept = sorted(ratings, key=lambda rating: (-rating.strength, rating.bot))
        names = sorted(rating.bot for rating in kept)
        index = {name: position for position, name in enumerate(names)}
        covariance = np.zeros((len(names), len(names)))
        strengths = [0.0] * len(names)
        for rating in kept:
            position = index[rating.bot]
            covariance[position, position] = rating.sd**2
            strengths[position] = rating.strength
        for (first, second), value in covariances.items():
            if first in index and second in index:
                covariance[index[first], index[second]] = value
                covariance[index[second], index[first]] = value
        placed = tuple(
            dataclasses.replace(rating, place=place) for place, rating in enumerate(kept, start=1)
        )
        return cls(placed, game_sd, confidence, index, StrengthCovariance(dense=covariance),
                   tuple(strengths))  # fmt: skip

    @classmethod
    def from_band(
        cls,
        ratings: Sequence[Rating],
        band_rows: Sequence[int],
        band: npt.NDArray[np.float64],
        *,
        game_sd: float,
        confidence: float,
    ) -> Standings:
        """Standings read back from a fit stored as a band (:meth:`from_stored`'s
        standings, with no dictionary of pairs: a thousand versions' read in a few
        milliseconds): ``band_rows[i]`` is the stored row of ``ratings[i]`` (-1: none, as
        for a version activated since) and ``band[r, d - 1]`` the covariance of the stored
        rows ``r`` and ``r + d``; a pair farther apart, or not stored, has none."""
        kept = sorted(ratings, key=lambda rating: (-rating.strength, rating.bot))
        names = sorted(rating.bot for rating in kept)
        index = {name: position for position, name in enumerate(names)}
        rows = np.full(len(names), -1, dtype=np.int64)
        variances, strengths = np.zeros(len(names)), [0.0] * len(names)
        for rating, row in zip(ratings, band_rows, strict=True):
            position = index[rating.bot]
            rows[position], variances[position] = row, rating.sd**2
            strengths[position] = rating.strength
        placed = tuple(Rating(r.bot, place, r.strength, r.sd, r.low, r.high, r.game_count)
                       for place, r in enumerate(kept, start=1))  # fmt: skip
        covariance = StrengthCovariance(variances=variances, band_rows=rows, band_values=band)
        return cls(placed, game_sd, confidence, index, covariance, tuple(strengths))

    def __contains__(self, bot: object) -> bool:
        return bot in self._index

    def difference_variance(self, first: str, second: str) -> float:
        """``Var(s_first - s_second)`` from the covariance of the fit."""
        i, j = self._position(first), self._position(second)
        entry = self._covariance.entry
        return max(entry(i, i) + entry(j, j) - 2.0 * entry(i, j), 0.0)

    def covariance(self, first: str, second: str) -> float:
        """``Cov(s_first, s_second)`` from the fit (``Var(s_first)`` for one bot twice)."""
        return self._covariance.entry(self._position(first), self._position(second))

    def gap(self, first: str, second: str) -> tuple[float, float]:
        """``s_first - s_second`` and its variance (remembered: the standings never change)."""
        key = (first, second)
        known = self._gaps.get(key)
        if known is None:
            difference = self.strength(first) - self.strength(second)
            known = (difference, self.difference_variance(first, second))
            self._gaps[key] = known
        return known

    def prime_gaps(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Work out :meth:`gap` of every pair of ``pairs`` at once, in numpy, and remember
        them for later :meth:`gap` calls (a fit's candidate pairs and chances: thousands
        at a thousand bots). A covariance kept as a factor takes each entry's dot product
        in one pass (to rounding, the pair-by-pair figure); one read back as a band gives
        the pair-by-pair figure exactly. A matrix kept whole answers pair by pair."""
        covariance = self._covariance
        if covariance.dense is not None or not pairs:
            return
        index = self._index
        first = np.array([index[one] for one, _other in pairs], dtype=np.int64)
        second = np.array([index[other] for _one, other in pairs], dtype=np.int64)
        own, between = covariance.entries(first, second)
        variances = np.maximum(own[first] + own[second] - 2.0 * between, 0.0)
        strengths = self._strengths
        for (one, other), i, j, variance in zip(
            pairs, first.tolist(), second.tolist(), variances.tolist(), strict=True
        ):
            self._gaps[(one, other)] = (strengths[i] - strengths[j], variance)

    def chance_above(self, first: str, second: str) -> float:
        """The chance that ``first`` is really stronger than ``second`` (normal
        approximation on the difference of their strengths)."""
        difference, variance = self.gap(first, second)
        if variance == 0.0:
            return 0.5 if difference == 0.0 else float(difference > 0.0)
        return _NORMAL.cdf(difference / math.sqrt(variance))

    def chances_above_next(self) -> tuple[float, ...]:
        """For each place but the last, the chance that its bot is really above the next."""
        order = self.order
        return tuple(self.chance_above(a, b) for a, b in itertools.pairwise(order))

    def strength(self, bot: str) -> float:
        """The fitted strength of ``bot`` in mbb/hand."""
        return self._strengths[self._position(bot)]

    def _position(self, bot: str) -> int:
        """The row of ``bot`` in the covariance (rows in name order, not place order)."""
        try:
            return self._index[bot]
        except KeyError:
            raise KeyError(f"bot {bot!r} is not in the standings") from None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form: the ratings and the chance each is above the next."""
        chances = self.chances_above_next()
        return {
            "confidence": self.confidence,
            "game_sd": self.game_sd,
            "ratings": [
                {
                    **rating.to_dict(),
                    "chance_above_next": chances[index] if index < len(chances) else None,
                }
                for index, rating in enumerate(self.ratings)
            ],
        }


def fit(
    sums: Mapping[tuple[str, str], PairSums] | PairColumns,
    bots: Iterable[str] = (),
    settings: FitSettings | None = None,
) -> Standings:
    """The strengths of every bot of ``sums`` (each pair's running sums,
    :func:`arena.ladder.sums.pair_sums`, or the same as columns, :class:`PairColumns`) and
    of ``bots`` (those without a game get strength 0 and the prior's interval), fitted as
    the module docstring says. Any history gives ratings: a pair without spread, identical
    bots, one game, no game at all."""
    settings = settings or FitSettings()
    columns = sums if isinstance(sums, PairColumns) else PairColumns.of(sums)
    played = columns.game_count > 0
    names = sorted(set(bots).union(columns.bots))
    index = {name: position for position, name in enumerate(names)}
    size = len(names)
    # The columns' positions in ``names``: each pair's two rows of the matrix.
    moved_to = np.array([index[name] for name in columns.bots], dtype=np.int64)
    firsts = moved_to[columns.first[played]] if len(moved_to) else columns.first[played]
    seconds = moved_to[columns.second[played]] if len(moved_to) else columns.second[played]
    counts = columns.game_count[played]
    spreads = columns.variance[played]
    pooled, freedom = pooled_variance(counts, spreads, settings)
    matrix = np.identity(size) / settings.prior_sd_mbb**2
    target = np.zeros(size)
    games = np.zeros(size, dtype=np.int64)
    variances = weights = np.zeros(0)
    if len(firsts):
        variances = shrunk_variance(spreads, counts, pooled, settings)
        weights = columns.information[played] / variances
        moved = weights * columns.mean[played]
        # The pairs' information, a weighted graph Laplacian, added onto the prior's ridge.
        np.add.at(matrix, (firsts, firsts), weights)
        np.add.at(matrix, (seconds, seconds), weights)
        np.add.at(matrix, (firsts, seconds), -weights)
        np.add.at(matrix, (seconds, firsts), -weights)
        np.add.at(target, firsts, moved)
        np.add.at(target, seconds, -moved)
        np.add.at(games, firsts, counts.astype(np.int64))
        np.add.at(games, seconds, counts.astype(np.int64))
    # The strengths sum to 0 exactly (the targets do), so their covariance is the one of
    # the fit projected on that constraint: the prior's common shift of every strength,
    # which says nothing about a bot against the field, is taken out.
    shift = settings.prior_sd_mbb**2 / size if size else 0.0
    z = _NORMAL.inv_cdf(1.0 - (1.0 - settings.confidence) / 2.0)
    # The spread of a game is estimated (the pooled variance, with ``freedom`` degrees of
    # freedom), so a strength over its standard error follows Student's t, not the normal:
    # the covariance is widened by (t / z)^2, and every normal interval and chance read
    # from it has the width of the t one (a few games per pair: 1.10 times wider).
    scale = 1.0
    if freedom:
        scale = (t_quantile(1.0 - (1.0 - settings.confidence) / 2.0, freedom) / z) ** 2
    covariance: StrengthCovariance
    if size <= DENSE_UP_TO:
        dense = np.asarray(np.linalg.inv(matrix) if size else matrix, dtype=np.float64)
        dense -= shift
        strengths = dense @ target
        covariance = StrengthCovariance(dense=dense)
    else:
        # The matrix is the ridge (positive) plus a Laplacian with positive weights (every
        # pair's variance is floored): symmetric positive definite whatever the results,
        # so its Cholesky factor exists, and the inverse of that factor gives any entry of
        # the covariance (:class:`StrengthCovariance`) at a third of a full inverse's work.
        factor = inverse_cholesky(matrix)
        strengths = factor.T @ (factor @ target) - shift * float(target.sum())
        rows = np.ascontiguousarray(factor.T)
        norms = np.asarray(np.einsum("ij,ij->i", rows, rows), dtype=np.float64)
        covariance = StrengthCovariance(rows, shift=shift, column_norms=norms)
    if len(firsts):
        # Each pair's residual checks its variance (:func:`checked_scale`): the pair's
        # leverage is its weight times the variance of its gap.
        gaps = covariance.difference_variances(firsts, seconds)
        residuals = columns.mean[played] - (strengths[firsts] - strengths[seconds])
        scale *= checked_scale(counts, columns.information[played], spreads, residuals,
                               weights * gaps, variances, pooled, settings)  # fmt: skip
    covariance = covariance.scaled(scale)
    values = [float(value) for value in strengths]
    sds = [math.sqrt(max(value, 0.0)) for value in covariance.diagonal()]
    ranked = sorted(range(size), key=lambda k: (-values[k], names[k]))
    ratings = tuple(
        Rating(names[k], place, values[k], sds[k], values[k] - z * sds[k],
               values[k] + z * sds[k], int(games[k]))
        for place, k in enumerate(ranked, start=1)
    )  # fmt: skip
    return Standings(
        ratings=ratings,
        game_sd=math.sqrt(pooled),
        confidence=settings.confidence,
        _index=index,
        _covariance=covariance,
        _strengths=tuple(values),
    )


#: The most bots whose covariance a fit forms whole (``numpy.linalg.inv``: a few
#: milliseconds at this size); above it the fit keeps the inverse Cholesky factor instead
#: (a thousand bots' inverse is most of a second of a loaded core, the factor a third of it).
DENSE_UP_TO = 256
