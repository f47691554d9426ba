"""Which result of a hand the statistics score: the raw chips won, or the luck-adjusted result.

A hand's raw result is the chips each seat won. When the match ran the luck estimator
(:mod:`arena.luck`), each hand also carries each seat's adjusted result: the raw result
minus zero-mean corrections for the luck of the cards (and of a bot's own reported dice).
Both have the same expected value, so either estimates a bot's win rate; the adjusted one
varies less, so its interval is narrower over the same hands. The luck of a result is
``raw - adjusted``.

Every statistic (duplicate units, intervals, the sequential test) reads a hand through
:func:`hand_values` with a :data:`Score`, so raw and adjusted share one code path.

>>> from arena.store.outcome import HandSummary
>>> hand = HandSummary(1, 2, (3, -3), adjusted=(0.5, -0.5))
>>> hand_values(hand, "raw"), hand_values(hand, "adjusted")
((3, -3), (0.5, -0.5))
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol

from arena.stats._values import is_real

__all__ = [
    "AdjustedHandLike",
    "Score",
    "check_score",
    "counts_adjusted",
    "hand_values",
]

#: What the statistics score: ``raw`` chips won, or the luck-``adjusted`` result.
Score = Literal["raw", "adjusted"]


class AdjustedHandLike(Protocol):
    """A hand's results: each seat's net chips and, when the estimator ran, its adjusted
    result (seat order)."""

    @property
    def hand_number(self) -> int: ...

    @property
    def nets(self) -> Sequence[int]: ...

    @property
    def adjusted(self) -> Sequence[float] | None: ...


class _MatchLike(Protocol):
    @property
    def hands(self) -> Sequence[AdjustedHandLike]: ...


def check_score(score: object) -> Score:
    """``score`` if it is ``"raw"`` or ``"adjusted"``; else ``ValueError`` naming it.

    >>> check_score("adjusted")
    'adjusted'
    """
    if score == "raw":
        return "raw"
    if score == "adjusted":
        return "adjusted"
    raise ValueError(f"score must be 'raw' or 'adjusted', got {score!r}")


def hand_values(hand: AdjustedHandLike, score: Score) -> Sequence[float]:
    """The hand's result per seat (seat order) under ``score``: its nets (chips) or its
    adjusted results. A hand without adjusted results, or with a value that is not a finite
    number, raises ``ValueError`` naming the hand."""
    if score == "raw":
        return hand.nets
    values = hand.adjusted
    if values is None:
        raise ValueError(
            f"hand {hand.hand_number!r} carries no adjusted result (its match ran without "
            "the luck estimator): score it raw"
        )
    if not all(is_real(value) and math.isfinite(value) for value in values):
        raise ValueError(f"hand {hand.hand_number!r}: adjusted {tuple(values)!r} are not finite")
    return values


def counts_adjusted(matches: Iterable[_MatchLike]) -> bool:
    """True when every hand of ``matches`` carries adjusted results, and at least one hand
    does: then the adjusted score is known for all of them.

    >>> from arena.store.outcome import HandSummary, MatchOutcome
    >>> bare = MatchOutcome("m", (), (HandSummary(1, 2, (1, -1)),), "hand_count", None, 0.0)
    >>> counts_adjusted([bare]), counts_adjusted([])
    (False, False)
    """
    found = False
    for match in matches:
        for hand in match.hands:
            if hand.adjusted is None:
                return False
            found = True
    return found
