"""Who is at the table for one hand: seat setups, seat snapshots, and where the blinds go.

Choices (for the issue notes): seats with an empty stack are not dealt in (status OUT); a
seat that is sitting out is dealt in like any other (it posts and receives cards; the
arena folds it when it must act).

Where the blinds go, two ways:

* By default (no blind seats given) the blinds are posted by the first two players dealt
  in left of the button; heads-up the button posts the small blind, acts first pre-flop and
  last after the flop. If the button seat is not dealt in, the blinds still go to the next
  players left of it (:func:`blind_positions`).
* With :class:`BlindSeats` (the table's dead button rule, ``engine.button``) the caller
  names the big blind and the small blind seats, and the button may be a seat where nobody
  sits (a dead button). The small blind may be dead (None): its seat is empty, so nobody
  posts it. :func:`given_blind_positions` accepts only what that rule can produce: the
  small blind (when posted) and then the big blind are the first players dealt in clockwise
  from the button seat, and heads-up the button is the small blind.

Either way play goes round from the button seat: cards are dealt and the draw and every
betting round after the first start with the first player left of the button seat (an empty
button seat is simply passed over); the first betting round starts left of the big blind.

>>> blind_positions([True, True, True], button=0)
(1, 2, 0)
>>> blind_positions([True, False, True], button=0)  # heads-up: the button is the small blind
(0, 2, 0)
>>> seats = [SeatSetup(0, "a", 9), SeatSetup(3, "b", 9), SeatSetup(5, "c", 9)]
>>> given_blind_positions(seats, 2, BlindSeats(small_blind_index=3, big_blind_index=5))
(1, 2, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import EngineError
from engine.phases import PlayerStatus

__all__ = [
    "BlindSeats",
    "SeatSetup",
    "SeatState",
    "SetupError",
    "blind_positions",
    "given_blind_positions",
    "validate_seats",
]


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


@dataclass(frozen=True, slots=True)
class BlindSeats:
    """The seats that post the blinds of one hand, when the caller places them.

    ``small_blind_index`` is None for a dead small blind: the seat due to post it is
    empty (its player busted), so nobody posts it that hand.

    >>> BlindSeats(small_blind_index=None, big_blind_index=4)
    BlindSeats(small_blind_index=None, big_blind_index=4)
    """

    small_blind_index: int | None
    big_blind_index: int


def _is_seat_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def validate_seats(
    seats: Sequence[SeatSetup], button_index: int, blinds: BlindSeats | None = None
) -> None:
    """Raise ``SetupError`` unless the seats can play a hand with this button.

    Without ``blinds`` the button must be one of the seats; with them it may be any seat
    number (a dead button), and :func:`given_blind_positions` checks the blinds.
    """
    indexes = [s.seat_index for s in seats]
    if len(set(indexes)) != len(indexes):
        raise SetupError("bad_seats", f"duplicate seat indexes: {indexes}")
    players = [s.player_id for s in seats]
    if len(set(players)) != len(players):
        raise SetupError("bad_seats", f"duplicate player ids: {players}")
    for seat in seats:
        if not isinstance(seat.stack, int) or seat.stack < 0:
            raise SetupError("bad_seats", f"seat {seat.seat_index} stack {seat.stack!r}")
    if blinds is None and button_index not in indexes:
        raise SetupError("bad_button", f"button seat {button_index} is not among {indexes}")
    if blinds is not None and not _is_seat_number(button_index):
        raise SetupError("bad_button", f"button seat must be a seat number, got {button_index!r}")
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


def given_blind_positions(
    seats: Sequence[SeatSetup], button_index: int, blinds: BlindSeats
) -> tuple[int | None, int, int]:
    """``(small blind or None, big blind, effective button)`` as positions in seat order
    for blinds placed by the caller (``seats`` validated, in seat-index order).

    The effective button is the last player dealt in at or before the button seat, so that
    "left of the button" is the first player dealt in after the button seat even when
    nobody sits there. Raises ``SetupError`` (``bad_blinds``) naming the bad seat unless
    the blinds are where the dead button rule puts them (see the module docstring).
    """
    indexes = [s.seat_index for s in seats]
    if indexes != sorted(indexes):
        raise SetupError(
            "bad_seats", f"blind seats need the seats in seat-index order, got {indexes}"
        )
    small, big = blinds.small_blind_index, blinds.big_blind_index
    dealt = [s.seat_index for s in seats if s.stack > 0]
    for name, seat in (("big blind", big), ("small blind", small)):
        if seat is not None and seat not in dealt:
            raise SetupError(
                "bad_blinds", f"{name} seat {seat!r} is not dealt in (players with chips: {dealt})"
            )
    # Clockwise from the button seat: the players dealt in, the button's own player last.
    after = [i for i in dealt if i > button_index] + [i for i in dealt if i <= button_index]
    if len(after) == 2:
        # Heads-up the button posts the small blind; the other player the big blind.
        expected: tuple[int | None, int] = (button_index, after[0])
    elif small is None:
        expected = (None, after[0])  # a dead small blind: the big blind is first
    else:
        expected = (after[0], after[1])
    if (small, big) != expected:
        raise SetupError(
            "bad_blinds",
            f"small blind seat {small!r} and big blind seat {big!r} do not follow button "
            f"seat {button_index} (expected {expected[0]!r} and {expected[1]!r})",
        )
    position_of = {seat: position for position, seat in enumerate(indexes)}
    return (
        None if small is None else position_of[small],
        position_of[big],
        position_of[after[-1]],
    )
