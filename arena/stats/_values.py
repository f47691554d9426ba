"""Checks and sums shared by the statistics modules (private)."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["checked_values", "is_real", "mean_and_variance"]


def is_real(value: object) -> bool:
    """True for an ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def checked_values(values: Sequence[float]) -> list[float]:
    """``values`` as floats; a non-sequence or a value that is not a finite number raises
    ``ValueError`` naming it."""
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise ValueError(f"values must be a sequence of numbers, got {values!r}")
    checked = []
    for index, value in enumerate(values):
        if not is_real(value) or not math.isfinite(value):
            raise ValueError(f"value {index} is not a finite number: {value!r}")
        checked.append(float(value))
    return checked


def mean_and_variance(values: Sequence[float]) -> tuple[float, float]:
    """The mean and the sample variance (divisor ``n - 1``) of two or more checked values.

    Values that are all equal give their value and exactly 0 (a sum then a division could
    round); otherwise two passes of exact sums, so a large mean cancels nothing.
    """
    n = len(values)
    first = values[0]
    if all(value == first for value in values):
        return first, 0.0
    mean = math.fsum(values) / n
    return mean, math.fsum((value - mean) ** 2 for value in values) / (n - 1)
