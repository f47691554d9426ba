"""A pair's results as running sums: what the ratings read of a pair, updated in constant
work per game, so the ladder never re-reads the games it has rated.

A pair's record is kept from the point of view of ``first`` (``first < second``): its games,
their information (the sum of the games' weights, :attr:`GameResult.weight`), the weighted
sum of the luck-adjusted scores, and the sum and sum of squares of the luck-adjusted and of
the raw scores, with the hands played. From them come the pair's weighted mean (what the
fit reads), each score's mean with its Student's t interval and its sample spread
(``(sum x^2 - n mean^2) / (n - 1)``, never below 0: rounding may leave a pair of identical
games a hair under it). The server keeps the same sums in its database, one row per pair,
updated in the transaction that stores a game.

>>> from arena.ladder.games import GameResult
>>> games = [GameResult("bob", "ann", 10.0, 40.0, 200), GameResult("ann", "bob", 30.0, 0.0, 200)]
>>> sums = pair_sums(games)
>>> record = sums[("ann", "bob")]
>>> record.game_count, record.mean, record.adjusted_estimate().stdev, record.hand_count
(2, 10.0, 28.284271247461902, 400)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from arena.ladder.games import GameResult
from arena.stats.intervals import Estimate, t_quantile

__all__ = ["PairColumns", "PairSums", "pair_sums"]


@dataclass(frozen=True, slots=True)
class PairSums:
    """One pair's rated games as running sums, from ``first``'s point of view (module
    docstring). :meth:`add` gives the sums with one more game."""

    first: str
    second: str
    game_count: int = 0
    information: float = 0.0
    weighted_sum: float = 0.0
    adjusted_sum: float = 0.0
    adjusted_squares: float = 0.0
    raw_sum: float = 0.0
    raw_squares: float = 0.0
    hand_count: int = 0

    def add(self, game: GameResult) -> PairSums:
        """These sums with ``game`` (one of this pair's, either way round) added."""
        if game.pair != (self.first, self.second):
            raise ValueError(
                f"game {game.first} vs {game.second} is not of the pair {self.first}, {self.second}"
            )
        adjusted, raw = game.score_for(self.first), game.raw_for(self.first)
        return PairSums(
            self.first,
            self.second,
            game_count=self.game_count + 1,
            information=self.information + game.weight,
            weighted_sum=self.weighted_sum + game.weight * adjusted,
            adjusted_sum=self.adjusted_sum + adjusted,
            adjusted_squares=self.adjusted_squares + adjusted * adjusted,
            raw_sum=self.raw_sum + raw,
            raw_squares=self.raw_squares + raw * raw,
            hand_count=self.hand_count + game.hand_count,
        )

    @property
    def mean(self) -> float:
        """``first``'s luck-adjusted mbb/hand, the games weighed by their weights (0 with no
        game)."""
        return self.weighted_sum / self.information if self.information > 0.0 else 0.0

    @property
    def variance(self) -> float:
        """The sample variance of one game's luck-adjusted score (0 below two games)."""
        return _variance(self.adjusted_sum, self.adjusted_squares, self.game_count)

    def adjusted_estimate(self, confidence: float = 0.95) -> Estimate:
        """``first``'s luck-adjusted mbb/hand with its interval over the games."""
        return _estimate(self.adjusted_sum, self.adjusted_squares, self.game_count, confidence)

    def raw_estimate(self, confidence: float = 0.95) -> Estimate:
        """``first``'s raw mbb/hand with its interval over the games."""
        return _estimate(self.raw_sum, self.raw_squares, self.game_count, confidence)


@dataclass(frozen=True, slots=True)
class PairColumns:
    """Many pairs' running sums as columns, what the fit reads: ``bots`` the names, and
    for each pair (from ``first``'s side) its two bots' positions in ``bots`` and its sums,
    one array per sum (:class:`PairSums`' fields). A server's thousands of pairs reach the
    fit as a few arrays, never as an object per pair. Columns of unequal lengths raise
    ``ValueError``.

    >>> columns = PairColumns.of(pair_sums([GameResult("bob", "ann", 10.0, 0.0, 200)]))
    >>> columns.bots, columns.first.tolist(), columns.adjusted_sum.tolist()
    (('ann', 'bob'), [0], [-10.0])
    """

    bots: tuple[str, ...]
    first: npt.NDArray[np.int64]
    second: npt.NDArray[np.int64]
    game_count: npt.NDArray[np.float64]
    information: npt.NDArray[np.float64]
    weighted_sum: npt.NDArray[np.float64]
    adjusted_sum: npt.NDArray[np.float64]
    adjusted_squares: npt.NDArray[np.float64]

    def __post_init__(self) -> None:
        lengths = {name: len(getattr(self, name)) for name in _COLUMNS}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"pair columns of unequal lengths: {lengths}")

    @classmethod
    def of(cls, sums: Mapping[tuple[str, str], PairSums]) -> PairColumns:
        """The columns of ``sums`` (:func:`pair_sums`' mapping)."""
        pairs = list(sums.values())
        bots = tuple(sorted({name for pair in pairs for name in (pair.first, pair.second)}))
        index = {name: position for position, name in enumerate(bots)}

        def column(name: str) -> npt.NDArray[np.float64]:
            return np.array([getattr(pair, name) for pair in pairs], dtype=np.float64)

        return cls(
            bots,
            np.array([index[pair.first] for pair in pairs], dtype=np.int64),
            np.array([index[pair.second] for pair in pairs], dtype=np.int64),
            *(column(name) for name in _COLUMNS[2:]),
        )

    @property
    def variance(self) -> npt.NDArray[np.float64]:
        """Each pair's sample variance of one game's luck-adjusted score (0 below two
        games), :attr:`PairSums.variance` for every pair at once."""
        count = self.game_count
        several = count >= 2
        safe = np.where(several, count, 2.0)
        spread = (self.adjusted_squares - self.adjusted_sum * self.adjusted_sum / safe) / (
            safe - 1.0
        )
        return np.where(several, np.maximum(spread, 0.0), 0.0)

    @property
    def mean(self) -> npt.NDArray[np.float64]:
        """Each pair's weighted mean (:attr:`PairSums.mean`; 0 with no information)."""
        informed = self.information > 0.0
        safe = np.where(informed, self.information, 1.0)
        return np.where(informed, self.weighted_sum / safe, 0.0)


#: The columns of :class:`PairColumns`, in its fields' order.
_COLUMNS = ("first", "second", "game_count", "information", "weighted_sum", "adjusted_sum",
            "adjusted_squares")  # fmt: skip


def pair_sums(games: Iterable[GameResult]) -> dict[tuple[str, str], PairSums]:
    """The rated games' sums by pair (key: the sorted names); the unrated ones are left
    out."""
    sums: dict[tuple[str, str], PairSums] = {}
    for game in games:
        if game.is_rated:
            key = game.pair
            sums[key] = sums.get(key, PairSums(*key)).add(game)
    return sums


def _variance(total: float, squares: float, count: int) -> float:
    if count < 2:
        return 0.0
    return max((squares - total * total / count) / (count - 1), 0.0)


def _estimate(total: float, squares: float, count: int, confidence: float) -> Estimate:
    """The mean and Student's t interval from a count, a sum and a sum of squares (as
    :func:`arena.stats.intervals.estimate` gives them from the values)."""
    if count == 0:
        return Estimate(0.0, -math.inf, math.inf, 0.0, 0, confidence)
    mean = total / count
    if count == 1:
        return Estimate(mean, -math.inf, math.inf, 0.0, 1, confidence)
    stdev = math.sqrt(_variance(total, squares, count))
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, count - 1) * stdev / math.sqrt(count)
    return Estimate(mean, mean - half, mean + half, stdev, count, confidence)
