"""The fit of the betting weights (:mod:`arena.luck.value_fit`): the control variates read
off the estimator are exact (the adjusted result is linear in the weights), the least
squares finds weights it was built to find, and bad input is named."""

from __future__ import annotations

import random

import pytest

from arena.luck import LuckValue, estimate_hand
from arena.luck.value_fit import COLUMNS, UnitRow, fit_value, unit_row
from tests.arena.luck.play import random_record

MADE_UP = LuckValue(
    {0: {"raised": 1.3, "to_call": -0.4}, 3: {"last_raised": 2.2}, 5: {"to_call": 0.9}}
)


def test_a_units_adjusted_result_is_linear_in_the_weights_as_the_fit_assumes() -> None:
    # adjusted(w) = adjusted(0) - sum_k w_k D_k, with D_k read off the estimator: the row's
    # linear prediction must be the estimator's own number for weights it never saw.
    for seed in range(6):
        forward = random_record(seed, stacks=(100, 100), mixed=True)
        backward = random_record(seed + 100, stacks=(100, 100))
        row = unit_row([(forward, 0, None), (backward, 1, None)], scale=0.5)
        expected = (
            estimate_hand(forward, MADE_UP).adjusted[0]
            + estimate_hand(backward, MADE_UP).adjusted[1]
        ) / 2
        assert row.adjusted(MADE_UP) == pytest.approx(expected, abs=1e-9)
        assert row.raw == (estimate_hand(forward).raw[0] + estimate_hand(backward).raw[1]) / 2


def _rows(weights: list[float], offset: float, rng: random.Random) -> list[UnitRow]:
    """Units whose base is exactly sum w_k D_k plus an offset (the group's skill): the
    fit must find ``weights`` whatever the offset."""
    rows = []
    for _ in range(40):
        columns = tuple(rng.gauss(0.0, 1.0) for _ in COLUMNS)
        base = offset + sum(w * d for w, d in zip(weights, columns, strict=True))
        rows.append(UnitRow(raw=base, base=base, columns=columns))
    return rows


def test_the_fit_finds_the_weights_that_explain_the_units_within_each_group() -> None:
    rng = random.Random(5)
    weights = [round(rng.uniform(-2.0, 2.0), 4) for _ in COLUMNS]
    # Each group has its own mean (the bots' skill): centred away, never fitted.
    groups = [_rows(weights, offset, rng) for offset in (-30.0, 0.0, 55.0)]
    fitted = fit_value(groups, [1.0, 2.0, 0.5])
    assert [fitted.weights[street][name] for street, name in COLUMNS] == pytest.approx(
        weights, abs=1e-4
    )
    # With them, every unit's adjusted result is its group's mean: no luck left.
    for rows, offset in zip(groups, (-30.0, 0.0, 55.0), strict=True):
        assert [row.adjusted(fitted) for row in rows] == pytest.approx([offset] * 40, abs=1e-2)


def test_a_weight_no_unit_moves_is_fitted_as_zero() -> None:
    # Before the flop nothing was completed yet: its last_raised is always 0.
    rows = [UnitRow(0.0, 2.0 * d, (d,) + (0.0,) * (len(COLUMNS) - 1)) for d in (1.0, -1.0, 3.0)]
    fitted = fit_value([rows])
    assert fitted.weights[0] == {
        "raised": 2.0,
        "to_call": 0.0,
        "last_raised": 0.0,
        "made_hand": 0.0,
    }
    assert "-0.0" not in str(fitted.to_dict())  # the same weights, the same hash


@pytest.mark.parametrize(
    ("groups", "weights", "message"),
    [
        ([[UnitRow(0.0, 1.0, (0.0,) * len(COLUMNS))]], None, "no group has two units or more"),
        ([], None, "no group has two units or more"),
        (
            [[UnitRow(0.0, 1.0, (0.0,) * len(COLUMNS))] * 2],
            [1.0, 1.0],
            "2 group weights for 1 groups",
        ),
        (
            [[UnitRow(0.0, 1.0, (0.0,) * len(COLUMNS))] * 2],
            [-1.0],
            "a group's weight must be at least 0",
        ),
    ],
)
def test_a_fit_with_nothing_to_fit_or_bad_group_weights_names_it(
    groups: list[list[UnitRow]], weights: list[float] | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        fit_value(groups, weights)
