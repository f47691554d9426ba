"""The sequential probability ratio test (:mod:`arena.stats.sprt`)."""

from __future__ import annotations

import json
import math
import random
import re
from typing import Any

import pytest

from arena.stats.sprt import Sprt, SprtResult


def test_bounds_of_five_percent_errors_are_plus_minus_2_944() -> None:
    test = Sprt(0.0, 50.0)
    assert test.lower_bound == pytest.approx(-2.944, abs=5e-4)
    assert test.upper_bound == pytest.approx(2.944, abs=5e-4)
    assert test.lower_bound == math.log(0.05 / 0.95)


def test_bounds_follow_each_error_rate() -> None:
    test = Sprt(0.0, 10.0, alpha=0.01, beta=0.1)
    assert test.upper_bound == pytest.approx(math.log(0.9 / 0.01))  # 4.50
    assert test.lower_bound == pytest.approx(math.log(0.1 / 0.99))  # -2.29


def test_llr_is_the_normal_log_likelihood_ratio_with_the_sample_variance() -> None:
    values = [120.0, -30.0, 75.0, 10.0, 60.0]
    n = len(values)
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    # Sum over the values of log N(x; 50, s^2) - log N(x; 0, s^2).
    direct = sum(((x - 0.0) ** 2 - (x - 50.0) ** 2) / (2 * variance) for x in values)
    assert Sprt(0.0, 50.0).llr(values) == pytest.approx(direct)
    assert Sprt(0.0, 50.0).llr(values) == pytest.approx(
        n * 50.0 * (2 * mean - 50.0) / (2 * variance)
    )


def test_llr_is_zero_halfway_between_the_hypotheses_and_grows_with_the_deals() -> None:
    test = Sprt(0.0, 50.0)
    assert test.llr([0.0, 50.0]) == pytest.approx(0.0)
    few = test.llr([100.0, -20.0, 60.0, 40.0])
    assert few > 0
    assert test.llr([100.0, -20.0, 60.0, 40.0] * 3) > few


def test_fewer_than_two_deals_carry_no_evidence() -> None:
    test = Sprt(0.0, 50.0)
    assert test.llr([]) == 0.0
    assert test.llr([500.0]) == 0.0
    assert test.decide([500.0]).status == "continue"


def test_deals_without_spread_decide_at_once() -> None:
    test = Sprt(0.0, 50.0)
    assert test.llr([-1500.0, -1500.0]) == -math.inf
    assert test.llr([40.0, 40.0]) == math.inf
    assert test.llr([25.0, 25.0]) == 0.0
    assert test.decide([-1500.0] * 3).status == "H0"


def test_decide_compares_the_llr_with_the_bounds() -> None:
    test = Sprt(0.0, 50.0)
    rng = random.Random(3)
    strong = [rng.gauss(200.0, 100.0) for _ in range(40)]
    weak = [rng.gauss(-150.0, 100.0) for _ in range(40)]
    unclear = [rng.gauss(25.0, 400.0) for _ in range(4)]
    assert test.decide(strong).status == "H1"
    assert test.decide(strong).is_decided
    assert test.decide(weak).status == "H0"
    result = test.decide(unclear)
    assert result.status == "continue" and not result.is_decided
    assert result.n == 4 and (result.mbb0, result.mbb1) == (0.0, 50.0)
    assert result.lower_bound < result.llr < result.upper_bound


def test_result_text_says_what_was_decided() -> None:
    h1 = SprtResult("H1", 3.012, -2.944, 2.944, 600, 0.0, 50.0)
    h0 = SprtResult("H0", -3.2, -2.944, 2.944, 1, 0.0, 12.5)
    going = SprtResult("continue", 1.204, -2.944, 2.944, 300, -5.0, 5.0)
    assert h1.text == (
        "SPRT H1 accepted: LLR 3.01 >= 2.94 [-2.94, 2.94] after 600 deals (mbb0=0, mbb1=50)"
    )
    assert str(h0) == (
        "SPRT H0 accepted: LLR -3.20 <= -2.94 [-2.94, 2.94] after 1 deal (mbb0=0, mbb1=12.5)"
    )
    assert going.text == (
        "SPRT continues: LLR 1.20 [-2.94, 2.94] after 300 deals (mbb0=-5, mbb1=5)"
    )


def test_to_dict_is_json_ready_even_when_the_llr_is_infinite() -> None:
    test = Sprt(0.0, 50.0)
    settled = test.decide([80.0, 80.0]).to_dict()
    assert settled["llr"] == "inf" and settled["status"] == "H1"
    json.dumps(settled, allow_nan=False)
    result = test.decide([10.0, 30.0, 50.0]).to_dict()
    assert isinstance(result["llr"], float) and result["n"] == 3
    assert result["text"].startswith("SPRT continues")
    settings = test.to_dict()
    assert settings["alpha"] == 0.05 and settings["upper_bound"] == test.upper_bound


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((50.0, 0.0), "mbb0 must be below mbb1 (H0 the smaller mean), got mbb0=50.0 and mbb1=0.0"),
        ((5.0, 5.0), "mbb0 must be below mbb1"),
        ((math.nan, 5.0), "mbb0 must be a finite number of mbb/hand, got nan"),
        ((0.0, math.inf), "mbb1 must be a finite number of mbb/hand, got inf"),
        (("0", 5.0), "mbb0 must be a finite number of mbb/hand, got '0'"),
        ((0.0, 5.0, 0.5), "alpha must be between 0 and 0.5, got 0.5"),
        ((0.0, 5.0, 0.0), "alpha must be between 0 and 0.5, got 0.0"),
        ((0.0, 5.0, 0.05, -0.1), "beta must be between 0 and 0.5, got -0.1"),
        ((0.0, 5.0, 0.05, True), "beta must be between 0 and 0.5, got True"),
    ],
)
def test_bad_sprt_arguments_are_named(arguments: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        Sprt(*arguments)


def test_bad_values_are_named() -> None:
    with pytest.raises(ValueError, match=re.escape("value 2 is not a finite number: nan")):
        Sprt(0.0, 5.0).llr([1.0, 2.0, math.nan])


# -- the test's error rates, by simulation --------------------------------------------------


def _run(test: Sprt, mean: float, seed: str, *, stdev: float = 150.0) -> str:
    """Feed normal deals in batches of 10 (as blocks of deals arrive) until a decision."""
    rng = random.Random(seed)
    values: list[float] = []
    while len(values) < 5000:
        values.extend(rng.gauss(mean, stdev) for _ in range(10))
        result = test.decide(values)
        if result.is_decided:
            return result.status
    return "continue"  # pragma: no cover - at these sizes every run decides


@pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.02, 0.1)])
def test_error_rates_over_many_simulations_are_near_alpha_and_beta(
    alpha: float, beta: float
) -> None:
    test = Sprt(0.0, 50.0, alpha=alpha, beta=beta)
    runs = 600
    under_h0 = [_run(test, 0.0, f"h0-{alpha}-{i}") for i in range(runs)]
    under_h1 = [_run(test, 50.0, f"h1-{alpha}-{i}") for i in range(runs)]
    false_h1 = under_h0.count("H1") / runs
    false_h0 = under_h1.count("H0") / runs
    # Mostly right, and wrong about as often as asked: within twice the error rate (the
    # normal approximation with an estimated variance is not exact), and not so rarely
    # that the bounds would be far too wide.
    assert under_h0.count("H0") / runs > 1 - 2 * alpha
    assert under_h1.count("H1") / runs > 1 - 2 * beta
    assert alpha / 5 < false_h1 < 2 * alpha
    assert beta / 5 < false_h0 < 2 * beta


def test_a_true_mean_halfway_is_decided_either_way_about_equally() -> None:
    test = Sprt(0.0, 50.0)
    outcomes = [_run(test, 25.0, f"mid-{i}") for i in range(300)]
    assert 0.35 < outcomes.count("H1") / 300 < 0.65
