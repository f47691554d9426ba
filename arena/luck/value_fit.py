"""Fitting the betting term's weights (a :class:`~arena.luck.parameters.LuckValue`) on hands
that are not the ones they will adjust: the shipped fit's corpus of self-play hands
(``bench/fit_luck_value.py``) and the ladder's fit on its own earlier games
(:mod:`arena.server.ladder.value_fits`) both fit here, the same way.

The model: the value is the chips already in plus each live seat's equity edge times
``sum w[street][feature] * feature`` (:mod:`arena.luck.value`). Every correction is linear
in the value, so a seat's adjusted result is linear in the weights: ``adjusted(w) =
adjusted(0) - sum_k w_k D_k``, where ``D_k = adjusted(0) - adjusted(e_k)`` is read off the
estimator itself with the single weight ``k`` set to 1 (:func:`unit_row`). Each ``D_k`` is
a sum of corrections, each of mean zero whatever the weights: a control variate. The
weights minimise the variance of the duplicate units (a deal's result summed over its
seatings), summed over groups of units whose means are skill, not luck (a pair's
tournament, a ladder game), each group weighted as the caller says: ordinary least squares
of the units' ``adjusted(0)`` on their ``D_k``, within each group (:func:`fit_value`).

Pure: no I/O, no clock; the same hands give the same weights.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.luck.estimator import estimate_hand
from arena.luck.parameters import STREETS, VALUE_TERMS, LuckValue

__all__ = ["COLUMNS", "UnitRow", "fit_value", "unit_row"]

#: The weights fitted, in the order of :attr:`UnitRow.columns`: one per street and feature
#: (the made-hand term's from the flop on: before it no hand is made).
COLUMNS: tuple[tuple[int, str], ...] = tuple(
    (street, name) for street in STREETS for name in VALUE_TERMS if street or name != "made_hand"
)
#: The value without a betting term, and each column's value with its weight alone 1.
_NO_BETTING = LuckValue({})
_ONE_WEIGHT = tuple(LuckValue({street: {name: 1.0}}) for street, name in COLUMNS)


@dataclass(frozen=True, slots=True)
class UnitRow:
    """One duplicate unit of one seat (a bot's result over a deal's seatings, scaled as
    the caller chose): ``raw``, ``base`` (adjusted with no betting term) and ``columns``,
    each weight's ``D_k`` (module docstring)."""

    raw: float
    base: float
    columns: tuple[float, ...]

    def adjusted(self, value: LuckValue) -> float:
        """The unit's adjusted result with ``value``'s weights (linear: no estimate).

        >>> row = UnitRow(raw=3.0, base=2.0, columns=(1.0,) + (0.0,) * 14)
        >>> row.adjusted(LuckValue({0: {"raised": 0.5}}))
        1.5
        """
        weights = [value.weights[street][name] for street, name in COLUMNS]
        return self.base - math.fsum(w * d for w, d in zip(weights, self.columns, strict=True))


def unit_row(
    halves: Sequence[tuple[Mapping[str, Any], int, Mapping[str, float] | None]],
    scale: float = 1.0,
) -> UnitRow:
    """The :class:`UnitRow` of a duplicate unit: ``halves`` are its hand records (as
    ``hands.jsonl`` stores them) with the position, in each record's history, of the seat
    whose result it is, and the players' leans in that hand (:mod:`arena.luck.leans`, as
    the match had them; None: none); each number is summed over them, times ``scale``. A
    record the estimator cannot read raises :class:`~arena.luck.LuckError`."""
    raw = base = 0.0
    columns = [0.0] * len(COLUMNS)
    for record, position, leans in halves:
        without = estimate_hand(record, _NO_BETTING)
        raw += without.raw[position]
        base += without.adjusted[position]
        for index, value in enumerate(_ONE_WEIGHT):
            with_one = estimate_hand(record, value, leans)
            columns[index] += without.adjusted[position] - with_one.adjusted[position]
    return UnitRow(raw * scale, base * scale, tuple(d * scale for d in columns))


def fit_value(
    groups: Sequence[Sequence[UnitRow]], group_weights: Sequence[float] | None = None
) -> LuckValue:
    """The weights minimising the weighted sum of the groups' variances of adjusted units
    (module docstring): each group centred on its own mean, weighted by ``group_weights``
    (default: 1 each). A weight no unit moves (a feature that is always 0 there) is 0.
    No group with two units or more is an error (nothing to fit).

    >>> rows = [UnitRow(raw=0.0, base=2.0 * d, columns=(d,) + (0.0,) * 14) for d in (1.0, -1.0)]
    >>> fit_value([rows]).weights[0]["raised"]
    2.0
    """
    weights = [1.0] * len(groups) if group_weights is None else list(group_weights)
    if len(weights) != len(groups):
        raise ValueError(f"{len(weights)} group weights for {len(groups)} groups")
    blocks_x, blocks_y = [], []
    for rows, weight in zip(groups, weights, strict=True):
        if len(rows) < 2:
            continue  # its mean is all it has: no variance to take out
        if not weight >= 0:
            raise ValueError(f"a group's weight must be at least 0, got {weight!r}")
        x = np.array([row.columns for row in rows], dtype=np.float64)
        y = np.array([row.base for row in rows], dtype=np.float64)
        blocks_x.append((x - x.mean(axis=0)) * math.sqrt(weight))
        blocks_y.append((y - y.mean()) * math.sqrt(weight))
    if not blocks_x:
        raise ValueError("no group has two units or more: nothing to fit")
    solution = np.linalg.lstsq(np.vstack(blocks_x), np.concatenate(blocks_y), rcond=None)[0]
    fitted: dict[int, dict[str, float]] = {}
    for (street, name), weight in zip(COLUMNS, solution, strict=True):
        # Rounded as the shipped weights were frozen (+ 0.0: no -0.0 in the hash).
        fitted.setdefault(street, {})[name] = round(float(weight), 4) + 0.0
    return LuckValue(fitted)
