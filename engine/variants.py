"""A variant is a plan: the steps of one hand as data, not as branches in the state machine.

The hand runs the steps in order. Hold'em deals two hole cards, then alternates betting
rounds and board cards; five-card draw deals five, bets, draws and bets again. Adding a
variant means writing a plan (and, for a new kind of step, one handler in ``engine.hand``).

>>> [type(step).__name__ for step in HOLDEM_PLAN][:3]
['DealHoleCards', 'BettingRound', 'DealBoard']
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.config import Variant
from engine.phases import Phase

__all__ = [
    "FIVE_CARD_DRAW_PLAN",
    "HOLDEM_PLAN",
    "PLANS",
    "BettingRound",
    "DealBoard",
    "DealHoleCards",
    "DrawRound",
    "Step",
]


@dataclass(frozen=True, slots=True)
class DealHoleCards:
    """Deal ``count`` cards face down to every player dealt in, one at a time, from the
    player left of the button round the table."""

    count: int


@dataclass(frozen=True, slots=True)
class BettingRound:
    """A betting round in ``phase``.

    ``is_first`` marks the round after the blinds: action starts left of the big blind
    (heads-up, with the button/small blind). Later rounds start with the first active
    player left of the button. ``uses_big_bet`` selects the fixed-limit bet size.
    """

    phase: Phase
    is_first: bool
    uses_big_bet: bool


@dataclass(frozen=True, slots=True)
class DealBoard:
    """Burn a card (before the flop, the turn and the river) and deal ``count`` board cards."""

    phase: Phase
    count: int


@dataclass(frozen=True, slots=True)
class DrawRound:
    """Five-card draw: every player still in discards and draws, from left of the button."""

    phase: Phase


Step = DealHoleCards | BettingRound | DealBoard | DrawRound

HOLDEM_PLAN: tuple[Step, ...] = (
    DealHoleCards(2),
    BettingRound(Phase.PRE_FLOP, is_first=True, uses_big_bet=False),
    DealBoard(Phase.FLOP, 3),
    BettingRound(Phase.FLOP, is_first=False, uses_big_bet=False),
    DealBoard(Phase.TURN, 1),
    BettingRound(Phase.TURN, is_first=False, uses_big_bet=True),
    DealBoard(Phase.RIVER, 1),
    BettingRound(Phase.RIVER, is_first=False, uses_big_bet=True),
)

FIVE_CARD_DRAW_PLAN: tuple[Step, ...] = (
    DealHoleCards(5),
    BettingRound(Phase.PRE_DRAW_BET, is_first=True, uses_big_bet=False),
    DrawRound(Phase.DRAW),
    BettingRound(Phase.POST_DRAW_BET, is_first=False, uses_big_bet=True),
)

#: The plan of each variant.
PLANS: dict[Variant, tuple[Step, ...]] = {
    Variant.HOLDEM: HOLDEM_PLAN,
    Variant.FIVE_CARD_DRAW: FIVE_CARD_DRAW_PLAN,
}
