""" "Is my new version better?": a sequential test of a team's candidate version against its
active one, and the rule that makes the candidate active by itself.

The candidate plays duplicate games against the team's active version (unrated: the test
moves no rating). Each game's luck-adjusted mbb/hand for the candidate is one observation
of a sequential probability ratio test with the bounds and hypotheses of
:class:`arena.stats.sprt.Sprt`: H0 "no better" (``mbb0``, 0 by default) against H1 "better
by ``mbb1``" (a margin worth switching for). After each game the log-likelihood ratio is
compared with Wald's bounds: at the upper one the candidate is better, at the lower one it
is not, in between the games go on. The state keeps the ratio after every game (a hundred
points at most) so a page can draw it climbing towards its bounds.

The spread of a game's score is not known: it is read from the games themselves, and the
ratio of :meth:`arena.stats.sprt.Sprt.llr` divides by the games' sample variance ``s²``
as if it were the true one. Early in a test that overstates the evidence: for normal
scores ``E[1 / s²] = (n - 1) / ((n - 3) σ²)``, so the ratio runs ahead of the one with
the true spread, leaps past a bound when a few games happen to agree, and the error rates
came out above the nominal 5%. The ratio here is that one times ``(n - 3) / (n - 1)``
(0 before four games): its expected step per game is then the one the true spread gives,
and both error rates hold (docs/ladder.md gives the figures, ``bench/bench_ladder.py
--version-tests`` measures them). Games without spread still make the evidence certain.

Before ``min_games`` games no verdict is given (the ratio is still shown): a handful of
games says little about the spread.

>>> from arena.ladder.games import GameResult
>>> test = PromotionTest("ann-v3", "ann-v2", min_games=5)
>>> scores = (80.0, 40.0, 60.0, 70.0, 50.0)
>>> state = test.state([GameResult("ann-v3", "ann-v2", m, m, 200) for m in scores])
>>> state.verdict, len(state.llr_history), round(state.result.llr, 2), round(state.upper_bound, 2)
(<Verdict.BETTER: 'better'>, 5, 10.0, 2.94)
>>> should_activate(state, auto_activate=True)
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from arena.ladder.games import GameResult
from arena.stats.sprt import Sprt, SprtResult

__all__ = [
    "PromotionState",
    "PromotionTest",
    "Verdict",
    "corrected_llr",
    "corrected_llr_of",
    "should_activate",
]

#: The most points of the ratio's history kept for a chart.
_HISTORY_POINTS = 100


class Verdict(StrEnum):
    """Where a promotion test stands."""

    BETTER = "better"
    NOT_BETTER = "not_better"
    CONTINUE = "continue"


@dataclass(frozen=True, slots=True)
class PromotionState:
    """A test after its games: the verdict, the SPRT's state and ``llr_history``, the
    ratio after each game (``(games, ratio)`` pairs; past :data:`_HISTORY_POINTS` games,
    at that many evenly spaced counts)."""

    candidate: str
    incumbent: str
    verdict: Verdict
    result: SprtResult
    llr_history: tuple[tuple[int, float], ...]

    @property
    def lower_bound(self) -> float:
        """Accept "not better" at or below this log-likelihood ratio."""
        return self.result.lower_bound

    @property
    def upper_bound(self) -> float:
        """Accept "better" at or above this log-likelihood ratio."""
        return self.result.upper_bound

    @property
    def game_count(self) -> int:
        """The games played so far."""
        return self.result.n

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form; an infinite ratio is written ``"inf"`` or ``"-inf"``."""
        return {
            "candidate": self.candidate,
            "incumbent": self.incumbent,
            "verdict": str(self.verdict),
            "sprt": self.result.to_dict(),
            "llr_history": [
                [count, value if math.isfinite(value) else str(value)]
                for count, value in self.llr_history
            ],
        }


@dataclass(frozen=True, slots=True)
class PromotionTest:
    """The test of ``candidate`` against ``incumbent`` (its team's active version). A bad
    argument raises ``ValueError`` naming it."""

    candidate: str
    incumbent: str
    sprt: Sprt = field(default_factory=lambda: Sprt(0.0, 20.0))
    min_games: int = 10

    def __post_init__(self) -> None:
        if self.candidate == self.incumbent:
            raise ValueError(f"a version cannot be tested against itself ({self.candidate!r})")
        count = self.min_games
        if not isinstance(count, int) or isinstance(count, bool) or count < 2:
            raise ValueError(f"min_games must be an integer of 2 or more, got {count!r}")

    def scores(self, games: Iterable[GameResult]) -> list[float]:
        """The candidate's luck-adjusted mbb/hand in each game against the incumbent, in
        the order given (games of other pairs are left out)."""
        pair = {self.candidate, self.incumbent}
        return [
            game.score_for(self.candidate) for game in games if {game.first, game.second} == pair
        ]

    def state(self, games: Iterable[GameResult]) -> PromotionState:
        """The test after ``games`` (any games: those of the pair are read)."""
        scores = self.scores(games)
        # A chart needs a hundred points or so: the ratio after every game up to that,
        # then at evenly spaced counts (always ending with the last game).
        total = len(scores)
        step = max(1, math.ceil(total / _HISTORY_POINTS))
        counts = [*range(step, total, step), total] if total else []
        sprt = self.sprt
        history = tuple((count, corrected_llr(scores[:count], sprt)) for count in counts)
        result = self.decide(scores)
        verdict = Verdict.CONTINUE
        if len(scores) >= self.min_games:
            if result.status == "H1":
                verdict = Verdict.BETTER
            elif result.status == "H0":
                verdict = Verdict.NOT_BETTER
        return PromotionState(self.candidate, self.incumbent, verdict, result, history)

    def decide(self, scores: Sequence[float]) -> SprtResult:
        """The test's state after the candidate's ``scores``: H1 ("better") or H0 accepted,
        or ``'continue'``, by the corrected ratio against the SPRT's bounds (the minimum of
        games is the verdict's business, :meth:`state`)."""
        return self.sprt.result(corrected_llr(scores, self.sprt), len(scores))


def corrected_llr(scores: Sequence[float], sprt: Sprt) -> float:
    """``sprt``'s log-likelihood ratio for ``scores`` times ``(n - 3) / (n - 1)`` (the module
    docstring); 0 for fewer than four scores, and ``inf`` or ``-inf`` (or 0 halfway) when
    they have no spread, as :meth:`arena.stats.sprt.Sprt.llr` gives.

    >>> scores = [30.0, 10.0, 20.0, 40.0, 0.0]
    >>> Sprt(0.0, 20.0).llr(scores), corrected_llr(scores, Sprt(0.0, 20.0))
    (4.0, 2.0)
    """
    n = len(scores)
    if n < 4:
        return 0.0
    return _corrected(sprt.llr(scores), n)


def corrected_llr_of(n: int, mean: float, variance: float, sprt: Sprt) -> float:
    """:func:`corrected_llr` from the scores' count, mean and sample variance (divisor
    ``n - 1``): a running test updates these game by game."""
    if n < 4:
        return 0.0
    evidence = (sprt.mbb1 - sprt.mbb0) * (2.0 * mean - sprt.mbb0 - sprt.mbb1)
    if variance == 0.0:
        return math.copysign(math.inf, evidence) if evidence else 0.0
    return _corrected(n * evidence / (2.0 * variance), n)


def _corrected(llr: float, n: int) -> float:
    """``llr`` times ``(n - 3) / (n - 1)`` (an infinite one stays infinite)."""
    return llr if math.isinf(llr) else llr * (n - 3) / (n - 1)


def should_activate(state: PromotionState, *, auto_activate: bool) -> bool:
    """True when the candidate becomes its team's active version by itself: the team
    asked for it (its ``auto_activate`` setting) and the test found it better."""
    return auto_activate and state.verdict is Verdict.BETTER
