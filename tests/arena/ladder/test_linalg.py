"""The rating fit's matrix inverse (:mod:`arena.ladder._linalg`)."""

from __future__ import annotations

import random

import pytest

from arena.ladder._linalg import inverse


def test_the_inverse_of_a_laplacian_plus_a_ridge_times_the_matrix_is_the_identity() -> None:
    rng = random.Random(4)
    size = 12
    matrix = [[1e-6 if i == j else 0.0 for j in range(size)] for i in range(size)]
    for i in range(size):
        for j in range(i + 1, size):
            if rng.random() < 0.5:
                weight = rng.uniform(0.1, 5.0)
                matrix[i][i] += weight
                matrix[j][j] += weight
                matrix[i][j] -= weight
                matrix[j][i] -= weight
    result = inverse(matrix)
    for i in range(size):
        assert result[i] == pytest.approx([result[j][i] for j in range(size)])  # symmetric
        for j in range(size):
            product = sum(matrix[i][k] * result[k][j] for k in range(size))
            assert product == pytest.approx(1.0 if i == j else 0.0, abs=1e-6)


def test_a_matrix_that_is_not_positive_definite_is_refused_naming_the_row() -> None:
    with pytest.raises(ValueError, match=r"row 1: pivot -3.0 \(not positive definite\)"):
        inverse([[1.0, 2.0], [2.0, 1.0]])
    assert inverse([]) == []
