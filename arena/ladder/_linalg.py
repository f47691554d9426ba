"""Dense linear algebra for the rating fit (private): the inverse of a symmetric positive
definite matrix, in pure Python.

The fit's matrix is the pairs' information (a weighted graph Laplacian) plus a small ridge,
so it is symmetric positive definite and Gauss-Jordan elimination needs no pivoting. The
work is ``n**3`` multiply-adds done a row at a time (a list comprehension per row): about
0.1 s for 100 bots and 0.6 s for 200 on one core, so a ladder refits after a batch of
results, not before every game.

>>> inverse([[4.0, 2.0], [2.0, 3.0]])
[[0.375, -0.25], [-0.25, 0.5]]
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["inverse"]


def inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite ``matrix`` (a list of rows).

    A pivot that is not positive means the matrix is not positive definite, a bug of the
    caller: ``ValueError`` names the row.
    """
    size = len(matrix)
    # In-place Gauss-Jordan: after step k, column k holds the inverse's column for the
    # pivots done so far (the identity's columns are never stored).
    rows = [[float(value) for value in row] for row in matrix]
    for pivot_index in range(size):
        pivot_row = rows[pivot_index]
        pivot = pivot_row[pivot_index]
        if not pivot > 0.0:
            raise ValueError(f"row {pivot_index}: pivot {pivot!r} (not positive definite)")
        scale = 1.0 / pivot
        pivot_row[pivot_index] = 1.0
        pivot_row = [value * scale for value in pivot_row]
        rows[pivot_index] = pivot_row
        for index in range(size):
            if index == pivot_index:
                continue
            row = rows[index]
            factor = row[pivot_index]
            if factor != 0.0:
                row[pivot_index] = 0.0
                rows[index] = [a - factor * b for a, b in zip(row, pivot_row, strict=True)]
    return rows
