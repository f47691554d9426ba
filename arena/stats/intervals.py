"""A mean in mbb/hand with its confidence interval (Student's t), standard library only.

The interval is ``mean +- t * stdev / sqrt(n)`` with ``t`` the Student's t quantile of
``n - 1`` degrees of freedom: the units (duplicate deals) are independent, and their
spread is estimated from the sample, so for small ``n`` the interval is wider than the
normal one. The t quantile is computed here, from the regularized incomplete beta function
(a continued fraction) for fewer than a thousand degrees of freedom and from its
Cornish-Fisher expansion around the normal quantile beyond.

>>> e = estimate([10.0, 30.0, 20.0, 40.0])
>>> e.mean, e.n, round(e.low, 2), round(e.high, 2), e.sign
(25.0, 4, 4.46, 45.54, '+')
>>> round(t_quantile(0.975, 9), 3)
2.262
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

from arena.stats._values import checked_values, is_real, mean_and_variance

__all__ = ["Estimate", "estimate", "t_quantile"]

# Past this many degrees of freedom the Cornish-Fisher expansion is exact to about 1e-13,
# while the continued fraction's prefactor (a difference of large log-gamma values) starts
# to lose digits.
_EXPANSION_FROM_DF = 1000.0
_FRACTION_EPSILON = 1e-15
_FRACTION_MAX_TERMS = 10_000
_TINY = 1e-300


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean in mbb/hand over ``n`` units, its interval ``[low, high]`` at ``confidence``
    and the units' sample standard deviation.

    With fewer than two units nothing is known about the spread: the interval is infinite
    (``low`` is ``-inf``, ``high`` is ``inf``) and ``stdev`` is 0; with none, ``mean`` is 0.

    >>> e = Estimate(mean=50.0, low=10.0, high=90.0, stdev=200.0, n=100)
    >>> e.bb_per_100, e.half_width, e.is_significant, e.sign
    (5.0, 40.0, True, '+')
    """

    mean: float
    low: float
    high: float
    stdev: float
    n: int
    confidence: float = 0.95

    @property
    def bb_per_100(self) -> float:
        """The mean in big blinds per 100 hands (1 bb/100 is 10 mbb/hand)."""
        return self.mean / 10.0

    @property
    def half_width(self) -> float:
        """Half the interval's width (``inf`` when the interval is infinite)."""
        return (self.high - self.low) / 2.0

    @property
    def is_significant(self) -> bool:
        """True when the interval excludes 0: the sign of the mean is established."""
        return self.low > 0.0 or self.high < 0.0

    @property
    def sign(self) -> str:
        """``'+'`` when the whole interval is above 0, ``'-'`` when below, else ``''``."""
        if self.low > 0.0:
            return "+"
        if self.high < 0.0:
            return "-"
        return ""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form; an infinite bound or half width is ``None`` (JSON has no
        infinity)."""
        return {
            "mean": self.mean,
            "low": _finite_or_none(self.low),
            "high": _finite_or_none(self.high),
            "half_width": _finite_or_none(self.half_width),
            "stdev": self.stdev,
            "n": self.n,
            "confidence": self.confidence,
            "bb_per_100": self.bb_per_100,
            "is_significant": self.is_significant,
            "sign": self.sign,
        }


def estimate(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    """The mean of ``values`` (mbb per unit) and its Student's t confidence interval.

    Fewer than two values give an infinite interval; values that are all equal give a
    zero-width one (no spread: the mean is exact). A value that is not a finite number, or
    a confidence outside (0, 1), raises ``ValueError`` naming it.

    >>> estimate([5.0, 5.0, 5.0]).half_width
    0.0
    >>> estimate([5.0]).high
    inf
    """
    if not is_real(confidence) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    checked = checked_values(values)
    n = len(checked)
    if n == 0:
        return Estimate(0.0, -math.inf, math.inf, 0.0, 0, confidence)
    if n == 1:
        return Estimate(checked[0], -math.inf, math.inf, 0.0, 1, confidence)
    mean, variance = mean_and_variance(checked)
    stdev = math.sqrt(variance)
    half = t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1) * stdev / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, stdev, n, confidence)


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t distribution with ``df`` degrees of freedom.

    >>> round(t_quantile(0.975, 30), 3), round(t_quantile(0.025, 30), 3), t_quantile(0.5, 4)
    (2.042, -2.042, 0.0)
    """
    if not is_real(p) or not 0.0 < p < 1.0:
        raise ValueError(f"a quantile's probability must be between 0 and 1, got {p!r}")
    if not is_real(df) or not 0.0 < df < math.inf:
        raise ValueError(f"degrees of freedom must be a positive number, got {df!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_upper_quantile(1.0 - p, float(df))
    return _upper_quantile(float(p), float(df))


# -- the t distribution ---------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def _upper_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = ``p`` > 0.5 (cached: a tournament asks for few distinct ones)."""
    if df >= _EXPANSION_FROM_DF:
        return _cornish_fisher(NormalDist().inv_cdf(p), df)
    tail = 1.0 - p
    low, high = 0.0, 1.0
    while _upper_tail(high, df) > tail:
        low, high = high, 2.0 * high
    # Bisection: the tail is strictly decreasing in t, so this always converges.
    while high - low > 1e-13 * high:
        middle = (low + high) / 2.0
        if _upper_tail(middle, df) > tail:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _upper_tail(t: float, df: float) -> float:
    """P(T > ``t``) for ``t`` >= 0: half the regularized incomplete beta
    I_x(df/2, 1/2) at x = df / (df + t^2)."""
    if math.isinf(t):
        return 0.0
    x = df / (df + t * t)
    return 0.5 * _regularized_beta(x, df / 2.0, 0.5)


def _cornish_fisher(z: float, df: float) -> float:
    """The t quantile from the normal one ``z`` by the Cornish-Fisher expansion in 1/df
    (Abramowitz and Stegun 26.7.5), its terms up to 1/df^4."""
    g1 = (z**3 + z) / 4.0
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96.0
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384.0
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160.0
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def _regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), from its continued fraction on the side where it converges fast."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(x, a, b) / a
    return 1.0 - front * _beta_fraction(1.0 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of the incomplete beta function, by the modified Lentz method."""
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _FRACTION_MAX_TERMS + 1):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            step = c * d
            result *= step
        if abs(step - 1.0) < _FRACTION_EPSILON:
            return result
    return result  # pragma: no cover - the fraction converges in a few dozen terms


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None
