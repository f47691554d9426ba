"""What a player may do (commands) and the one source of truth for what is legal now.

Actions are commands, named as such: ``Fold``, ``Check``, ``Call``, ``RaiseTo``, ``AllIn``
and, in five-card draw, ``Discard``. ``RaiseTo.amount`` is the player's *total* commitment
on this betting round after the raise (a first bet on a street is a raise from 0).

``LegalActions`` is frozen and is both what the engine validates against and what the arena
sends to a bot, so the two can never disagree.

>>> RaiseTo(60).kind
<ActionKind.RAISE: 'RAISE'>
>>> str(RaiseTo(60))
'RAISE 60'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from engine.cards import Card
from engine.speed.dataclass_init import fast_init

__all__ = [
    "Action",
    "ActionKind",
    "AllIn",
    "Call",
    "Check",
    "Discard",
    "Fold",
    "LegalActions",
    "RaiseTo",
]


class ActionKind(StrEnum):
    """The action names, as used on the wire."""

    FOLD = "FOLD"
    CHECK = "CHECK"
    CALL = "CALL"
    RAISE = "RAISE"
    ALL_IN = "ALL_IN"
    DISCARD = "DISCARD"


@dataclass(frozen=True, slots=True)
class Fold:
    """Give up the hand; chips already committed stay in the pot."""

    kind: ClassVar[ActionKind] = ActionKind.FOLD

    def __str__(self) -> str:
        return "FOLD"


@dataclass(frozen=True, slots=True)
class Check:
    """Pass without betting; legal only when nothing is to be called."""

    kind: ClassVar[ActionKind] = ActionKind.CHECK

    def __str__(self) -> str:
        return "CHECK"


@dataclass(frozen=True, slots=True)
class Call:
    """Match the current bet (or put in the whole stack if it is shorter).

    Leniency: a call when nothing is to be called is treated as a check (the player
    meant to stay in).
    """

    kind: ClassVar[ActionKind] = ActionKind.CALL

    def __str__(self) -> str:
        return "CALL"


@dataclass(frozen=True, slots=True)
class RaiseTo:
    """Bet or raise so that this round's total commitment becomes ``amount``."""

    amount: int
    kind: ClassVar[ActionKind] = ActionKind.RAISE

    def __str__(self) -> str:
        return f"RAISE {self.amount}"


@dataclass(frozen=True, slots=True)
class AllIn:
    """Commit the whole remaining stack (a call, a bet or a raise, whichever it amounts to)."""

    kind: ClassVar[ActionKind] = ActionKind.ALL_IN

    def __str__(self) -> str:
        return "ALL_IN"


@dataclass(frozen=True, slots=True)
class Discard:
    """Five-card draw: throw away these cards (possibly none, "standing pat")."""

    cards: tuple[Card, ...]
    kind: ClassVar[ActionKind] = ActionKind.DISCARD

    def __str__(self) -> str:
        return "DISCARD " + (" ".join(str(c) for c in self.cards) or "none")


Action = Fold | Check | Call | RaiseTo | AllIn | Discard


@dataclass(frozen=True, slots=True)
class LegalActions:
    """Everything the player to act may do, with the exact amounts.

    Amounts are chips. ``current_bet`` is the highest total commitment on this betting
    round, ``committed`` this player's, ``call_amount`` the chips a call adds (capped at the
    stack: a short call is all-in). ``min_raise_to``/``max_raise_to`` are totals for this
    round; when the stack cannot reach a full raise, ``min_raise_to == max_raise_to`` is
    the all-in amount. ``can_raise`` is false when the betting was not reopened for this
    player (a short all-in, WSOP Rule 96), when the raise cap is reached (fixed-limit), or
    when the stack only covers a call. For a draw decision only ``can_draw`` and
    ``max_discard_count`` matter.
    """

    seat_index: int
    stack: int
    current_bet: int
    committed: int
    can_fold: bool
    can_check: bool
    can_call: bool
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int
    can_draw: bool = False
    max_discard_count: int = 0

    @classmethod
    def draw(
        cls, seat_index: int, stack: int, max_discard_count: int, *, current_bet: int = 0
    ) -> LegalActions:
        """A five-card-draw decision: discard 0 to ``max_discard_count`` cards, nothing else."""
        return cls(
            seat_index=seat_index,
            stack=stack,
            current_bet=current_bet,
            committed=0,
            can_fold=False,
            can_check=False,
            can_call=False,
            call_amount=0,
            can_raise=False,
            min_raise_to=0,
            max_raise_to=0,
            can_draw=True,
            max_discard_count=max_discard_count,
        )

    @property
    def is_draw(self) -> bool:
        """True when this decision is a five-card-draw discard, not a bet."""
        return self.can_draw

    @property
    def all_in_to(self) -> int:
        """The round total this player reaches by going all-in."""
        return self.committed + self.stack

    @property
    def can_all_in(self) -> bool:
        """True when ``AllIn`` is legal now: a call for the whole stack, or a bet or raise
        when the structure allows the whole stack (never above a pot-limit maximum)."""
        if self.can_draw or self.stack <= 0:
            return False
        total = self.committed + self.stack
        if total <= self.current_bet:
            return self.can_call
        return self.can_raise and self.max_raise_to == total


fast_init(LegalActions)  # one is built per decision
