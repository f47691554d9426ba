"""Who is at the table for one hand: seat setups, seat snapshots, and where the blinds go.

Choices (for the issue notes): seats with an empty stack are not dealt in (status OUT); a
seat that is sitting out is dealt in like any other (it posts and receives cards; the
arena folds it when it must act). The blinds are posted by the first two players dealt in
left of the button; heads-up the button posts the small blind, acts first pre-flop and last
after the flop. There are no dead or missing blinds: if the button seat is not dealt in, the
blinds still go to the next players left of it.

>>> blind_positions([True, True, True], button=0)
(1, 2, 0)
>>> blind_positions([True, False, True], button=0)  # heads-up: the button is the small blind
(0, 2, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import EngineError
from engine.phases import PlayerStatus

__all__ = ["SeatSetup", "SeatState", "SetupError", "blind_positions", "validate_seats"]


class SetupError(EngineError, ValueError):
    """A hand that cannot be started as asked (too few players, bad seats, no deck)."""


@dataclass(frozen=True, slots=True)
class SeatSetup:
    """A seat at the start of a hand. ``is_sitting_out`` is recorded; the seat plays."""

    seat_index: int
    player_id: str
    stack: int
    is_sitting_out: bool = False


@dataclass(frozen=True, slots=True)
class SeatState:
    """A snapshot of one seat during a hand (for views, histories and the facade)."""

    seat_index: int
    player_id: str
    stack: int
    status: PlayerStatus
    street_committed: int
    hand_committed: int
    is_sitting_out: bool
    discard_count: int | None = None


def validate_seats(seats: Sequence[SeatSetup], button_index: int) -> None:
    """Raise ``SetupError`` unless the seats can play a hand with this button."""
    indexes = [s.seat_index for s in seats]
    if len(set(indexes)) != len(indexes):
        raise SetupError("bad_seats", f"duplicate seat indexes: {indexes}")
    players = [s.player_id for s in seats]
    if len(set(players)) != len(players):
        raise SetupError("bad_seats", f"duplicate player ids: {players}")
    for seat in seats:
        if not isinstance(seat.stack, int) or seat.stack < 0:
            raise SetupError("bad_seats", f"seat {seat.seat_index} stack {seat.stack!r}")
    if button_index not in indexes:
        raise SetupError("bad_button", f"button seat {button_index} is not among {indexes}")
    if sum(1 for s in seats if s.stack > 0) < 2:
        raise SetupError("not_enough_players", "a hand needs at least 2 players with chips")


def blind_positions(dealt_in: Sequence[bool], button: int) -> tuple[int, int, int]:
    """``(small blind, big blind, effective button)`` as positions in seat order.

    The blinds are the first two players dealt in left of the button. Heads-up the button
    posts the small blind and is the small blind's seat for turn order and the odd chip
    (so the big blind acts first after the flop, even with a dead button).
    """
    count = len(dealt_in)
    dealt = [
        (button + step) % count for step in range(1, count + 1) if dealt_in[(button + step) % count]
    ]
    if len(dealt) == 2:
        small = button if dealt_in[button] else dealt[0]
        big = dealt[1] if small == dealt[0] else dealt[0]
        return small, big, small
    return dealt[0], dealt[1], button
