"""The sequential probability ratio test on mbb/hand, as chess engine testers run it on Elo.

Two hypotheses about a bot's true win rate against another: H0, the mean is ``mbb0``
(for example 0: no better), and H1, it is ``mbb1`` (for example 50 mbb/hand: better by a
margin worth knowing). After each batch of duplicate deals the log-likelihood ratio (LLR)
of H1 against H0 is compared with two bounds from the error rates wanted (Wald):

- ``LLR >= log((1 - beta) / alpha)``: accept H1 (a false H1 at most ``alpha`` of the time);
- ``LLR <= log(beta / (1 - alpha))``: accept H0 (a missed H1 at most ``beta`` of the time);
- otherwise play on.

The LLR is the normal approximation of fishtest's generalized SPRT: with ``n`` deals of
mean ``m`` and sample variance ``s^2``, ``LLR = n * (mbb1 - mbb0) * (2m - mbb0 - mbb1) /
(2 s^2)``, the exact LLR of two normal distributions with the variance estimated from the
data. Duplicate deals are independent, so they are the sample.

>>> test = Sprt(0.0, 50.0)
>>> round(test.lower_bound, 3), round(test.upper_bound, 3)
(-2.944, 2.944)
>>> test.decide([100.0, -40.0, 80.0]).status
'continue'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from arena.stats._values import checked_values, is_real, mean_and_variance

__all__ = ["Sprt", "SprtResult", "SprtStatus"]

SprtStatus = Literal["H0", "H1", "continue"]


@dataclass(frozen=True, slots=True)
class SprtResult:
    """Where the test stands after ``n`` deals.

    >>> result = SprtResult("H1", 3.012, -2.944, 2.944, 600, 0.0, 50.0)
    >>> result.text
    'SPRT H1 accepted: LLR 3.01 >= 2.94 [-2.94, 2.94] after 600 deals (mbb0=0, mbb1=50)'
    """

    status: SprtStatus
    llr: float
    lower_bound: float
    upper_bound: float
    n: int
    mbb0: float
    mbb1: float

    @property
    def is_decided(self) -> bool:
        """True when one hypothesis was accepted (the pair may stop playing)."""
        return self.status != "continue"

    @property
    def text(self) -> str:
        """One line for the console and the report."""
        bounds = f"[{self.lower_bound:.2f}, {self.upper_bound:.2f}]"
        deals = f"after {self.n} deal{'' if self.n == 1 else 's'}"
        hypotheses = f"(mbb0={self.mbb0:g}, mbb1={self.mbb1:g})"
        if self.status == "H1":
            verdict = f"H1 accepted: LLR {self.llr:.2f} >= {self.upper_bound:.2f}"
        elif self.status == "H0":
            verdict = f"H0 accepted: LLR {self.llr:.2f} <= {self.lower_bound:.2f}"
        else:
            verdict = f"continues: LLR {self.llr:.2f}"
        return f"SPRT {verdict} {bounds} {deals} {hypotheses}"

    def __str__(self) -> str:
        return self.text

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form; an infinite LLR (deals without spread) is written as a
        string, ``"inf"`` or ``"-inf"``, since JSON has no infinity."""
        llr = self.llr if math.isfinite(self.llr) else str(self.llr)
        return {**asdict(self), "llr": llr, "text": self.text}


@dataclass(frozen=True, slots=True)
class Sprt:
    """A test of H0 "the mean is ``mbb0``" against H1 "the mean is ``mbb1``" (mbb/hand,
    ``mbb0 < mbb1``) with error rates ``alpha`` (false H1) and ``beta`` (false H0), each
    strictly between 0 and 0.5. A bad argument raises ``ValueError`` naming it."""

    mbb0: float
    mbb1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("mbb0", "mbb1"):
            value = getattr(self, name)
            if not is_real(value) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number of mbb/hand, got {value!r}")
        if not self.mbb0 < self.mbb1:
            raise ValueError(
                f"mbb0 must be below mbb1 (H0 the smaller mean), got mbb0={self.mbb0!r} "
                f"and mbb1={self.mbb1!r}"
            )
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not is_real(value) or not 0.0 < value < 0.5:
                raise ValueError(f"{name} must be between 0 and 0.5, got {value!r}")

    @property
    def lower_bound(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper_bound(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, values: Sequence[float]) -> float:
        """The log-likelihood ratio of H1 against H0 for ``values`` (mbb per deal).

        Fewer than two values carry no estimate of the spread: 0. Values without any
        spread (all equal, at least two) make the evidence certain: ``inf`` when their mean
        is nearer ``mbb1``, ``-inf`` when nearer ``mbb0``, 0 halfway.
        """
        checked = checked_values(values)
        n = len(checked)
        if n < 2:
            return 0.0
        mean, variance = mean_and_variance(checked)
        evidence = (self.mbb1 - self.mbb0) * (2.0 * mean - self.mbb0 - self.mbb1)
        if variance == 0.0:
            return math.copysign(math.inf, evidence) if evidence else 0.0
        return n * evidence / (2.0 * variance)

    def decide(self, values: Sequence[float]) -> SprtResult:
        """The test's state after ``values``: H1 or H0 accepted, or ``'continue'``."""
        return self.result(self.llr(values), len(values))

    def result(self, llr: float, count: int) -> SprtResult:
        """The test's state for a log-likelihood ratio ``llr`` after ``count`` values: H1
        at or above the upper bound, H0 at or below the lower one, else ``'continue'``."""
        lower, upper = self.lower_bound, self.upper_bound
        status: SprtStatus = "continue"
        if llr >= upper:
            status = "H1"
        elif llr <= lower:
            status = "H0"
        return SprtResult(status, llr, lower, upper, count, self.mbb0, self.mbb1)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form of the test's settings and bounds."""
        return {**asdict(self), "lower_bound": self.lower_bound, "upper_bound": self.upper_bound}
