"""The numbers under the ladder's fit (:func:`arena.ladder.ratings.fit`): the inverse of a
Cholesky factor, worked out by halves, and the variance of one game's score, pooled over
the pairs and shrunk towards the pool pair by pair. numpy only, no state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from arena.ladder.ratings import FitSettings

__all__ = ["in_order", "inverse_cholesky", "pooled_variance", "shrunk_variance"]


def inverse_cholesky(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``F`` with ``F^T F`` the inverse of the symmetric positive definite ``matrix``: the
    inverse of its lower Cholesky factor."""
    if not len(matrix):
        return matrix
    return _lower_inverse(np.asarray(np.linalg.cholesky(matrix), dtype=np.float64))


def _lower_inverse(lower: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The inverse of a lower triangular matrix, by halves: ``[[A, 0], [C, D]]`` has the
    inverse ``[[A^-1, 0], [-D^-1 C A^-1, D^-1]]``, so the work is matrix products (a third
    of a general inverse's, and numpy's products are its fastest code); small blocks go to
    numpy's inverse."""
    size = len(lower)
    if size <= _BLOCK:
        return np.asarray(np.linalg.inv(lower), dtype=np.float64)
    half = size // 2
    top, bottom = _lower_inverse(lower[:half, :half]), _lower_inverse(lower[half:, half:])
    inverse = np.zeros_like(lower)
    inverse[:half, :half] = top
    inverse[half:, half:] = bottom
    inverse[half:, :half] = -(bottom @ (lower[half:, :half] @ top))
    return inverse


#: The size below which `_lower_inverse` inverts a block whole.
_BLOCK = 128


def pooled_variance(
    counts: npt.NDArray[np.float64], variances: npt.NDArray[np.float64], settings: FitSettings
) -> tuple[float, float]:
    """The variance of one game's score pooled over the pairs with two games or more
    (``counts`` their games, ``variances`` their sample variances), and its degrees of
    freedom (0: no pair has two games, or their spread is below the floor
    ``min_game_sd_mbb``, which is no measurement: the fallback is used).

    Each pair's sample variance counts by its degrees of freedom, but by no more than
    ``variance_prior_games``: the pooled spread is the prior of the pairs that played
    little, so one pair played far more than the rest must not make it its own spread.
    The degrees of freedom are then Satterthwaite's, ``(sum c)^2 / sum(c^2 / f)``
    (``sum f`` when no pair is capped)."""
    cap = settings.variance_prior_games
    several = counts >= 2
    freedom = counts[several] - 1.0
    weight = np.minimum(freedom, cap) if cap > 0.0 else freedom
    total = in_order(weight)
    squares = in_order(variances[several] * weight)
    if total == 0.0 or squares / total < settings.min_game_sd_mbb**2:
        return float(settings.fallback_game_sd_mbb) ** 2, 0.0
    return squares / total, total * total / in_order(weight * weight / freedom)


def in_order(values: npt.NDArray[np.float64]) -> float:
    """The sum of ``values`` added one after another (``cumsum``'s order, not ``sum``'s
    pairwise one): the same bits on every run as the sum over the pairs in order, so the
    ratings, and the matchmaking that breaks ties on them, do not move in the last digit."""
    return float(np.cumsum(values)[-1]) if len(values) else 0.0


def shrunk_variance(
    variances: npt.NDArray[np.float64],
    counts: npt.NDArray[np.float64],
    pooled: float,
    settings: FitSettings,
) -> npt.NDArray[np.float64]:
    """Each pair's variance of one game, shrunk towards the pooled one, and never below the
    floor's: a pair whose games all agree (identical bots) is not made certain by it."""
    prior = settings.variance_prior_games
    freedom = counts - 1.0
    none = freedom + prior == 0.0  # one game and no prior: the pooled spread alone
    shrunk = (prior * pooled + freedom * variances) / np.where(none, 1.0, prior + freedom)
    floored = np.maximum(np.where(shrunk > 0.0, shrunk, pooled), settings.min_game_sd_mbb**2)
    return np.where(none, pooled, floored)
