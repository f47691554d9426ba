"""The numbers under the ladder's fit (:func:`arena.ladder.ratings.fit`): the inverse of a
Cholesky factor, worked out by halves, the variance of one game's score, pooled over the
pairs and shrunk towards the pool pair by pair, and the widening of the covariance that
each pair's residual from the fit asks for. numpy only, no state."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from arena.ladder.ratings import FitSettings

__all__ = ["checked_scale", "in_order", "inverse_cholesky", "pooled_variance", "shrunk_variance"]


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


def checked_scale(
    counts: npt.NDArray[np.float64],
    information: npt.NDArray[np.float64],
    spreads: npt.NDArray[np.float64],
    residuals: npt.NDArray[np.float64],
    leverages: npt.NDArray[np.float64],
    variances: npt.NDArray[np.float64],
    pooled: float,
    settings: FitSettings,
) -> float:
    """The factor by which the fit's covariance (built on the pairs' shrunk variances,
    ``variances``) is widened, or narrowed, once each pair's variance is checked against
    its residual from the fit.

    A pair's shrunk variance has the pooled prior and its games' spread, but not the other
    thing the data say of it: how far its mean lies from the strengths fitted on every pair
    (``residuals``: the mean less the fitted gap). With ``h`` the pair's leverage (the share
    of its mean the fit reproduces), ``information * residual^2`` has the expectation
    ``(1 - h)`` times the variance of one game: ``1 - h`` more degrees of freedom, and the
    only part of a pair's record that its weight was not built on (its games' spread is, so
    a pair whose games happened to agree weighs much and looks certain). Each pair's checked
    variance is its shrunk variance's formula with that sum of squares and those degrees
    added; the factor is the checked variances' ratio to the shrunk ones, averaged over the
    pairs by leverage (each pair's share of the fit's information). With one game a pair,
    when every shrunk variance is the pooled one, the residuals are the only sign that a
    pair's spread differs from the pool's.

    Only heads-up pairs are checked (``information`` equal to ``counts``): the comparisons
    of one ring table share its noise and add up exactly (``a - b`` and ``b - c`` give
    ``a - c``), so their residuals are smaller than their variance says."""
    heads_up = information == counts
    freedom = np.maximum(counts - 1.0, 0.0)
    residual_freedom = np.where(heads_up, np.clip(1.0 - leverages, 0.0, 1.0), 0.0)
    squares = np.where(heads_up, information * residuals * residuals, 0.0)
    prior = settings.variance_prior_games
    weight = prior + freedom + residual_freedom
    checked = prior * pooled + freedom * spreads + squares
    checked = np.where(weight > 0.0, checked / np.where(weight > 0.0, weight, 1.0), pooled)
    checked = np.maximum(checked, settings.min_game_sd_mbb**2)
    total = in_order(leverages)
    if total <= 0.0:
        return 1.0
    return in_order(leverages * checked / variances) / total
