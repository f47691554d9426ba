"""Means and Student's t intervals (:mod:`arena.stats.intervals`)."""

from __future__ import annotations

import json
import math
import random
import re
from statistics import NormalDist
from typing import Any, cast

import pytest

from arena.stats.intervals import Estimate, _upper_tail, estimate, t_quantile

# Two-sided 95% and 99% critical values of Student's t from printed tables (three decimals).
T_TABLE = [
    (0.975, 1, 12.706),
    (0.975, 2, 4.303),
    (0.975, 5, 2.571),
    (0.975, 9, 2.262),
    (0.975, 10, 2.228),
    (0.975, 20, 2.086),
    (0.975, 30, 2.042),
    (0.975, 60, 2.000),
    (0.975, 120, 1.980),
    (0.995, 1, 63.657),
    (0.995, 4, 4.604),
    (0.995, 9, 3.250),
    (0.995, 30, 2.750),
    (0.95, 9, 1.833),
    (0.9, 15, 1.341),
    (0.9995, 10, 4.587),
]


@pytest.mark.parametrize(("p", "df", "expected"), T_TABLE)
def test_t_quantile_matches_the_printed_tables(p: float, df: int, expected: float) -> None:
    assert round(t_quantile(p, df), 3) == expected
    assert round(t_quantile(1 - p, df), 3) == -expected


def test_t_quantile_of_one_degree_of_freedom_is_the_cauchy_quantile() -> None:
    for p in (0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-10)


def test_t_quantile_of_two_degrees_of_freedom_has_a_closed_form() -> None:
    for p in (0.55, 0.8, 0.975, 0.9999):
        alpha = 4 * p * (1 - p)
        assert t_quantile(p, 2) == pytest.approx(2 * (p - 0.5) * math.sqrt(2 / alpha), rel=1e-10)


def test_t_quantile_approaches_the_normal_quantile_for_many_degrees_of_freedom() -> None:
    z = NormalDist().inv_cdf(0.975)
    assert t_quantile(0.975, 10**9) == pytest.approx(z, abs=1e-8)
    # Either side of the switch from the continued fraction to the expansion agrees.
    assert t_quantile(0.975, 999) == pytest.approx(t_quantile(0.975, 1000), abs=1e-5)
    assert t_quantile(0.975, 999) > t_quantile(0.975, 1000) > z
    assert t_quantile(0.975, 1000) == pytest.approx(1.962339, abs=1e-6)


def t_cdf(t: float, df: float) -> float:
    """P(T <= ``t``), from the upper tail that t_quantile searches."""
    tail = _upper_tail(abs(t), df)
    return 1.0 - tail if t >= 0 else tail


def test_t_quantile_inverts_the_t_distribution() -> None:
    for df in (1, 3, 7.5, 40, 500):
        for p in (0.01, 0.3, 0.5, 0.9, 0.995):
            assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=1e-10)
    assert t_cdf(math.inf, 4) == 1.0
    assert t_cdf(-math.inf, 4) == 0.0
    assert t_cdf(1e200, 4) == 1.0  # t * t overflows: x = df / (df + t^2) is 0


def test_the_t_distribution_of_many_degrees_of_freedom_is_nearly_normal() -> None:
    assert t_cdf(1.96, 10**6) == pytest.approx(NormalDist().cdf(1.96), abs=1e-6)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: t_quantile(0.0, 5), "probability must be between 0 and 1, got 0.0"),
        (lambda: t_quantile(1, 5), "probability must be between 0 and 1, got 1"),
        (lambda: t_quantile(math.nan, 5), "probability must be between 0 and 1, got nan"),
        (lambda: t_quantile(cast(Any, "0.9"), 5), "probability must be between 0 and 1, got '0.9'"),
        (lambda: t_quantile(0.9, 0), "degrees of freedom must be a positive number, got 0"),
        (
            lambda: t_quantile(0.9, math.inf),
            "degrees of freedom must be a positive number, got inf",
        ),
        (lambda: t_quantile(0.9, True), "degrees of freedom must be a positive number, got True"),
    ],
)
def test_bad_t_arguments_are_named(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        call()


# -- estimate -------------------------------------------------------------------------------


def test_estimate_is_mean_plus_minus_t_times_the_standard_error() -> None:
    values = [12.0, -3.0, 40.0, 7.0, 25.0, -11.0, 30.0, 2.0, 18.0, 9.0]
    result = estimate(values)
    mean = sum(values) / 10
    stdev = math.sqrt(sum((v - mean) ** 2 for v in values) / 9)
    half = 2.2621571628 * stdev / math.sqrt(10)
    assert result.n == 10
    assert result.mean == pytest.approx(mean)
    assert result.stdev == pytest.approx(stdev)
    assert result.low == pytest.approx(mean - half)
    assert result.high == pytest.approx(mean + half)
    assert result.half_width == pytest.approx(half)
    assert result.confidence == 0.95


def test_a_higher_confidence_gives_a_wider_interval() -> None:
    values = [1.0, 5.0, 2.0, 8.0, 3.0]
    assert estimate(values, 0.99).half_width > estimate(values).half_width
    assert estimate(values, 0.5).half_width < estimate(values).half_width


def test_fewer_than_two_values_give_an_infinite_interval() -> None:
    one = estimate([7.0])
    assert (one.mean, one.low, one.high, one.stdev, one.n) == (7.0, -math.inf, math.inf, 0.0, 1)
    assert not one.is_significant and one.sign == "" and one.half_width == math.inf
    none = estimate([])
    assert (none.mean, none.low, none.high, none.n) == (0.0, -math.inf, math.inf, 0)
    assert not none.is_significant


def test_equal_values_give_a_zero_width_interval_at_the_value() -> None:
    # 0.1 three times: a sum then a division would not give 0.1 back exactly.
    result = estimate([0.1, 0.1, 0.1])
    assert (result.mean, result.low, result.high, result.stdev) == (0.1, 0.1, 0.1, 0.0)
    assert result.is_significant and result.sign == "+"
    zero = estimate([0.0, 0.0])
    assert not zero.is_significant and zero.sign == ""


def test_a_large_mean_does_not_cancel_the_spread() -> None:
    result = estimate([1e12 + 1.0, 1e12 + 2.0, 1e12 + 3.0])
    assert result.stdev == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("values", "confidence", "message"),
    [
        ([1.0, math.nan], 0.95, "value 1 is not a finite number: nan"),
        ([math.inf], 0.95, "value 0 is not a finite number: inf"),
        ([1.0, "2"], 0.95, "value 1 is not a finite number: '2'"),
        ([True, 1.0], 0.95, "value 0 is not a finite number: True"),
        ("12", 0.95, "values must be a sequence of numbers, got '12'"),
        ({1.0, 2.0}, 0.95, "values must be a sequence of numbers, got {1.0, 2.0}"),
        ([1.0, 2.0], 1.0, "confidence must be between 0 and 1, got 1.0"),
        ([1.0, 2.0], 0, "confidence must be between 0 and 1, got 0"),
        ([1.0, 2.0], "95%", "confidence must be between 0 and 1, got '95%'"),
    ],
)
def test_bad_estimate_input_is_named(values: Any, confidence: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        estimate(values, confidence)


def test_bb_per_100_is_a_tenth_of_mbb_per_hand() -> None:
    # 1 bb/100 hands = 1000 mbb / 100 hands = 10 mbb/hand.
    assert Estimate(mean=25.0, low=0.0, high=50.0, stdev=1.0, n=9).bb_per_100 == 2.5


@pytest.mark.parametrize(
    ("low", "high", "sign", "significant"),
    [(1.0, 3.0, "+", True), (-3.0, -1.0, "-", True), (-1.0, 1.0, "", False), (0.0, 2.0, "", False)],
)
def test_sign_and_significance_follow_the_interval(
    low: float, high: float, sign: str, significant: bool
) -> None:
    result = Estimate(mean=(low + high) / 2, low=low, high=high, stdev=1.0, n=5)
    assert result.sign == sign
    assert result.is_significant is significant


def test_to_dict_is_json_ready_even_with_an_infinite_interval() -> None:
    finite = estimate([10.0, 20.0, 30.0]).to_dict()
    assert finite["mean"] == 20.0 and finite["n"] == 3 and finite["bb_per_100"] == 2.0
    assert finite["low"] < 20.0 < finite["high"]
    assert finite["sign"] == "" and finite["is_significant"] is False
    infinite = estimate([10.0]).to_dict()
    assert (infinite["low"], infinite["high"], infinite["half_width"]) == (None, None, None)
    json.dumps(infinite, allow_nan=False)
    json.dumps(finite, allow_nan=False)


def test_normal_samples_are_covered_at_the_advertised_rate() -> None:
    rng = random.Random(11)
    trials = 2000
    hits = 0
    for _ in range(trials):
        result = estimate([rng.gauss(3.0, 10.0) for _ in range(6)])
        hits += result.low <= 3.0 <= result.high
    # With 6 values a normal quantile would cover about 0.89; t covers 0.95 exactly.
    assert 0.93 <= hits / trials <= 0.97
