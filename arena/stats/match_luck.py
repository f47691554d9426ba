"""How much of one match's result was luck: each seat's raw and adjusted result, and their
difference.

A match whose hands carry the luck-adjusted result (:mod:`arena.stats.scores`) splits each
seat's chips won into what it earned (the adjusted result) and the luck of the cards and
of its own reported dice (``raw - adjusted``). Both are given in chips and in mbb/hand
(each hand measured by its own big blind), so ``raw = adjusted + luck`` in either unit.

>>> from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome
>>> seats = (SeatOutcome(0, "ann", 10, 1, 2), SeatOutcome(1, "bob", -10, 2, 2))
>>> hands = (HandSummary(1, 2, (12, -12), adjusted=(1.0, -1.0)),
...          HandSummary(2, 2, (-2, 2), adjusted=(0.5, -0.5)))
>>> ann = match_luck(MatchOutcome("m1", seats, hands, "hand_count", None, 0.0)).seats[0]
>>> ann.raw_chips, ann.adjusted_chips, ann.luck_chips, ann.luck_mbb
(10, 1.5, 8.5, 2125.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.stats.scores import counts_adjusted, hand_values
from arena.stats.units import HandLike, OutcomeLike

__all__ = ["MatchLuck", "SeatLuck", "match_luck"]


@dataclass(frozen=True, slots=True)
class SeatLuck:
    """One seat's result in a match: raw and adjusted, in chips and in mbb/hand."""

    bot: str
    hands: int
    raw_chips: int
    adjusted_chips: float
    raw_mbb: float
    adjusted_mbb: float

    @property
    def luck_chips(self) -> float:
        """The chips the seat won (or lost) by luck: raw minus adjusted."""
        return self.raw_chips - self.adjusted_chips

    @property
    def luck_mbb(self) -> float:
        """The luck in mbb/hand: raw minus adjusted."""
        return self.raw_mbb - self.adjusted_mbb

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "bot": self.bot,
            "hands": self.hands,
            "raw_chips": self.raw_chips,
            "adjusted_chips": self.adjusted_chips,
            "luck_chips": self.luck_chips,
            "raw_mbb_per_hand": self.raw_mbb,
            "adjusted_mbb_per_hand": self.adjusted_mbb,
            "luck_mbb_per_hand": self.luck_mbb,
        }


@dataclass(frozen=True, slots=True)
class MatchLuck:
    """Each seat's raw, adjusted and luck result in one match (seat order)."""

    match_id: str
    seats: tuple[SeatLuck, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {"match_id": self.match_id, "seats": [seat.to_dict() for seat in self.seats]}


def match_luck(outcome: OutcomeLike) -> MatchLuck | None:
    """The luck of each seat of ``outcome``; None unless every hand carries adjusted
    results (a match without the estimator, or without hands). A bad hand raises
    ``ValueError`` naming it."""
    if not counts_adjusted([outcome]):
        return None
    seats = []
    for seat in outcome.seats:
        index = seat.seat_index
        hands = [hand for hand in outcome.hands if index < len(hand.nets)]
        raw = [int(hand.nets[index]) for hand in hands]
        adjusted = [float(_adjusted(outcome, hand)[index]) for hand in hands]
        count = len(hands)
        seats.append(
            SeatLuck(
                bot=seat.bot,
                hands=count,
                raw_chips=sum(raw),
                adjusted_chips=math.fsum(adjusted),
                raw_mbb=_mean_mbb(raw, hands),
                adjusted_mbb=_mean_mbb(adjusted, hands),
            )
        )
    return MatchLuck(outcome.match_id, tuple(seats))


def _adjusted(outcome: OutcomeLike, hand: HandLike) -> Sequence[float]:
    try:
        values = hand_values(hand, "adjusted")
    except ValueError as error:
        raise ValueError(f"match {outcome.match_id!r} {error}") from None
    if len(values) != len(hand.nets):
        raise ValueError(
            f"match {outcome.match_id!r} hand {hand.hand_number!r}: {len(values)} adjusted "
            f"results for {len(hand.nets)} seats"
        )
    return values


def _mean_mbb(chips: Sequence[float], hands: Sequence[HandLike]) -> float:
    """The mean of ``1000 * chips / big blind`` over the hands that have a big blind (an
    ante-only level has none to measure by); 0 without any."""
    rates = [
        1000.0 * value / hand.big_blind
        for value, hand in zip(chips, hands, strict=True)
        if hand.big_blind > 0
    ]
    return math.fsum(rates) / len(rates) if rates else 0.0
