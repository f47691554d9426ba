"""The covariance of the ladder's fitted strengths, kept as cheaply as its use allows.

A fit of up to :data:`~arena.ladder.ratings.DENSE_UP_TO` bots keeps the whole matrix; a
larger one keeps the inverse Cholesky factor of its information, so an entry is one dot
product and the thousand bots' million entries are never formed; stored standings keep a
band of it (each bot with the few just below it). :class:`StrengthCovariance` answers the
same questions (an entry, the diagonal, many pairs' gaps at once, a band) in each form.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["PAIRS_AT_ONCE", "StrengthCovariance"]

#: The pairs whose columns :meth:`StrengthCovariance.entries` copies at a time.
PAIRS_AT_ONCE = 256


@dataclass(frozen=True, slots=True)
class StrengthCovariance:
    """The strengths' covariance (rows in name order), as a fit leaves it or as storage
    keeps it. A fit's is ``scale * (F^T F - shift)`` from the inverse ``F`` of the Cholesky
    factor of its information, kept as ``columns`` (``F``'s columns as contiguous rows):
    an entry is one dot product, and the whole matrix (a thousand bots' million entries,
    a product as costly as the fit) is never formed. A stored one is ``dense``: a band of
    it, the rest 0 (:meth:`Standings.from_stored`)."""

    columns: npt.NDArray[np.float64] | None = None
    dense: npt.NDArray[np.float64] | None = None
    shift: float = 0.0
    scale: float = 1.0
    #: A stored band (:meth:`Standings.from_band`): each row's variance, its row of the
    #: band (-1: none) and the band (``band[r, d - 1]``: stored rows ``r`` and ``r + d``).
    variances: npt.NDArray[np.float64] | None = None
    band_rows: npt.NDArray[np.int64] | None = None
    band_values: npt.NDArray[np.float64] | None = None
    #: A factor's columns' squared norms (:meth:`norms`).
    column_norms: npt.NDArray[np.float64] | None = None

    def entry(self, first: int, second: int) -> float:
        """The covariance of the strengths in rows ``first`` and ``second``."""
        if self.variances is not None:
            return self._banded(first, second)
        if self.columns is None:
            assert self.dense is not None  # one or the other, by construction
            return float(self.dense[first, second])
        product = float(self.columns[first] @ self.columns[second])
        return self.scale * (product - self.shift)

    def _banded(self, first: int, second: int) -> float:
        assert self.variances is not None and self.band_rows is not None
        assert self.band_values is not None
        if first == second:
            return float(self.variances[first])
        low, high = sorted((int(self.band_rows[first]), int(self.band_rows[second])))
        distance = high - low
        if low < 0 or distance > self.band_values.shape[1]:
            return 0.0  # a pair the band does not keep has none
        return float(self.band_values[low, distance - 1])

    def diagonal(self) -> list[float]:
        """Every strength's variance, in row order."""
        if self.variances is not None:
            return [float(value) for value in self.variances]
        if self.columns is None:
            assert self.dense is not None
            return [float(value) for value in np.diagonal(self.dense)]
        return [float(value) for value in self.scale * (self.norms() - self.shift)]

    def entries(
        self, first: npt.NDArray[np.int64], second: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Every row's variance, and the covariance of rows ``first[k]`` and ``second[k]``
        (distinct rows) for each ``k``, of a factor or a band (not a matrix kept whole)."""
        if self.variances is not None:
            assert self.band_rows is not None and self.band_values is not None
            one, other = self.band_rows[first], self.band_rows[second]
            low, distance = np.minimum(one, other), np.abs(one - other)
            kept = (low >= 0) & (distance <= self.band_values.shape[1])
            found = np.zeros(len(first))
            found[kept] = self.band_values[low[kept], distance[kept] - 1]
            return self.variances, found
        assert self.columns is not None
        cross = np.empty(len(first))
        for start in range(0, len(first), PAIRS_AT_ONCE):  # a few columns copied at a time
            chunk = slice(start, start + PAIRS_AT_ONCE)
            cross[chunk] = np.einsum(
                "ij,ij->i", self.columns[first[chunk]], self.columns[second[chunk]]
            )
        return self.scale * (self.norms() - self.shift), self.scale * (cross - self.shift)

    def difference_variances(
        self, first: npt.NDArray[np.int64], second: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        """``Var(s_first[k] - s_second[k])`` for each ``k`` (distinct rows), of a fit's
        covariance (a factor or a matrix kept whole)."""
        if self.dense is not None:
            dense = self.dense
            return np.asarray(
                dense[first, first] + dense[second, second] - 2.0 * dense[first, second],
                dtype=np.float64,
            )
        own, between = self.entries(first, second)
        return np.asarray(own[first] + own[second] - 2.0 * between, dtype=np.float64)

    def scaled(self, factor: float) -> StrengthCovariance:
        """This covariance times ``factor`` (a fit's: a matrix kept whole or a factor)."""
        if self.dense is not None:
            return dataclasses.replace(self, dense=self.dense * factor)
        return dataclasses.replace(self, scale=self.scale * factor)

    def norms(self) -> npt.NDArray[np.float64]:
        """Each of a factor's columns' squared norm (the fit works them out with it)."""
        assert self.column_norms is not None  # a factor always comes with them
        return self.column_norms

    def band(self, positions: Sequence[int], count: int) -> list[list[float]]:
        """For each row of ``positions``, its covariance with the ``count`` rows after it
        there (fewer at the end)."""
        if self.variances is not None:
            return [[self._banded(row, other) for other in positions[k + 1 : k + 1 + count]]
                    for k, row in enumerate(positions)]  # fmt: skip
        if self.columns is None:
            assert self.dense is not None
            dense = self.dense
            return [[float(value) for value in dense[row, positions[k + 1 : k + 1 + count]]]
                    for k, row in enumerate(positions)]  # fmt: skip
        columns = self.columns[list(positions)]
        rows: list[list[float]] = [[] for _ in positions]
        for distance in range(1, min(count, len(positions) - 1) + 1):
            products = np.einsum("ij,ij->i", columns[:-distance], columns[distance:])
            for k, value in enumerate(self.scale * (products - self.shift)):
                rows[k].append(float(value))
        return rows
