"""What one seat may see of a hand: the only place where hidden cards are redacted.

A :class:`SeatView` is built by ``Hand.view(seat_index)``. Other seats' hole cards appear
only once they were shown at showdown; the deck, the burn cards and other seats' discards
never appear. The protocol turns a view into the ``act`` message without adding anything
the view does not contain.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.actions import LegalActions
from engine.cards import Card
from engine.speed.dataclass_init import fast_init

__all__ = ["PotView", "SeatPublicView", "SeatView"]


@dataclass(frozen=True, slots=True)
class SeatPublicView:
    """What everyone may know about one seat."""

    seat_index: int
    player_id: str
    stack: int
    status: str  # a PlayerStatus value: ACTIVE, FOLDED, ALL_IN, OUT, ...
    street_committed: int  # chips put in on the current betting round ("current_bet")
    hand_committed: int  # chips put in during the whole hand, blinds and antes included
    position: str  # "button", "small_blind", "big_blind" or ""
    shown_cards: tuple[Card, ...] | None  # hole cards shown at showdown, else None
    discard_count: int | None = None  # five-card draw: how many cards it drew (public)


@dataclass(frozen=True, slots=True)
class PotView:
    """A pot (main first, then side pots) and the seats that may win it."""

    amount: int
    eligible_seat_indexes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """The hand as seen from ``seat_index`` (or by a spectator when ``seat_index`` is None)."""

    hand_number: int
    variant: str
    structure: str
    phase: str
    seat_index: int | None
    hole_cards: tuple[Card, ...]  # this seat's own cards; empty for spectators
    board: tuple[Card, ...]
    button_index: int
    small_blind_index: int | None
    big_blind_index: int | None
    small_blind: int
    big_blind: int
    ante: int
    seats: tuple[SeatPublicView, ...]
    pots: tuple[PotView, ...]  # chips already gathered from earlier betting rounds
    pot_total: int  # everything committed this hand, current round included
    current_bet: int  # the highest commitment on the current betting round
    actor_index: int | None  # the seat to act, if any
    legal_actions: LegalActions | None  # only when ``seat_index`` is the actor
    history: tuple[dict[str, Any], ...]  # public events so far, as plain dicts
    is_over: bool


# Views are built before every decision: the faster constructor (engine.speed).
for _view_class in (SeatPublicView, PotView, SeatView):
    fast_init(_view_class)
