"""The outcome of a finished hand, as plain values the arena and protocol can ship."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import CARD_TEXTS, Card

__all__ = ["HandResult", "PotAward"]


@dataclass(frozen=True, slots=True)
class PotAward:
    """One pot (index 0 is the main pot) and how it was shared out.

    ``shares`` pairs each winning seat with the chips it received; the odd chip of a split
    pot goes to the first winner clockwise from the button (the order of ``shares``).
    """

    pot_index: int
    amount: int
    eligible_seat_indexes: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (seat_index, chips)
    hand_description: str = ""  # "two pair, kings and nines"; empty when won by folds

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "pot_index": self.pot_index,
            "amount": self.amount,
            "eligible_seat_indexes": list(self.eligible_seat_indexes),
            "shares": [{"seat_index": s, "amount": a} for s, a in self.shares],
            "hand_description": self.hand_description,
        }


@dataclass(frozen=True, slots=True)
class HandResult:
    """Everything public about how a hand ended.

    ``ended_reason`` is ``"FOLD"`` (everyone else folded), ``"SHOWDOWN"`` or ``"VOID"``
    (an invariant failed, the hand was aborted and every contribution refunded).
    ``shown_cards`` holds only hands that were shown; a mucked or uncontested hand is absent.
    """

    hand_number: int
    ended_reason: str
    board: tuple[Card, ...]
    shown_cards: dict[int, tuple[Card, ...]]
    awards: tuple[PotAward, ...]
    starting_stacks: dict[int, int]
    final_stacks: dict[int, int]

    @property
    def net_chips(self) -> dict[int, int]:
        """Chips won (positive) or lost (negative) per seat in this hand."""
        return {s: self.final_stacks[s] - self.starting_stacks[s] for s in self.final_stacks}

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (cards as text, seats as string keys)."""
        return {
            "hand_number": self.hand_number,
            "ended_reason": self.ended_reason,
            "board": [CARD_TEXTS[c] for c in self.board],
            "shown_cards": {
                str(s): [CARD_TEXTS[c] for c in cs] for s, cs in self.shown_cards.items()
            },
            "awards": [award.to_dict() for award in self.awards],
            "starting_stacks": {str(s): v for s, v in self.starting_stacks.items()},
            "final_stacks": {str(s): v for s, v in self.final_stacks.items()},
        }
