"""Where the button and the blinds go from one hand to the next: the table's button rules.

:class:`~engine.table.Table` remembers where the last hand's button and blinds were (a
:class:`Rotation`) and asks :func:`next_rotation` for the next hand's. Two rules:

* ``ButtonRule.MOVING`` (the default; online and bot tables): the button moves to the next
  player with chips clockwise, and the blinds are the next two players left of it (heads-up
  the button posts the small blind). When a player busts somebody may skip a blind or post
  one twice.
* ``ButtonRule.DEAD`` (tournaments; the TDA "dead button" rule): the blinds, not the
  button, lead. The big blind moves forward exactly one player every hand: it goes to the
  first player with chips clockwise after the seat of the last big blind, so nobody skips
  the big blind and nobody posts it twice in a row. The small blind is posted from the seat
  of the last big blind; if that player busted, the small blind is dead and nobody posts it.
  The button goes to the seat of the last small blind, even when that seat is empty now (a
  dead button, passed over when cards are dealt and play starts "left of the button").
  Heads-up the button posts the small blind, so when play becomes heads-up the big blind
  still moves forward one player and the other player is button and small blind (there is
  no dead small blind heads-up).

Under both rules the first hand's button is the chosen first seat (or the next player with
chips clockwise from it) with the blinds the next two players left of it. A hand without
blinds (antes only) moves the button as the moving rule does, and so does the hand after
it, and the hand after a player joins the table: the dead button rule has no place for a
newcomer, so a join starts the rotation afresh from the last button.

>>> first = next_rotation(ButtonRule.DEAD, [0, 1, 2, 3], None)
>>> first
Rotation(button_index=0, small_blind_seat=1, small_blind_index=1, big_blind_index=2)
>>> next_rotation(ButtonRule.DEAD, [0, 1, 3], first)  # seat 2 busted: a dead small blind
Rotation(button_index=1, small_blind_seat=2, small_blind_index=None, big_blind_index=3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from engine.seating import BlindSeats

__all__ = ["ButtonRule", "Rotation", "next_rotation"]


def first_at_or_after(sorted_indexes: list[int], start: int) -> int:
    """The first index >= ``start`` in ``sorted_indexes``, wrapping around to the lowest."""
    for index in sorted_indexes:
        if index >= start:
            return index
    return sorted_indexes[0]


class ButtonRule(StrEnum):
    """How the button and the blinds move between hands (see the module docstring)."""

    MOVING = "moving"
    DEAD = "dead"


@dataclass(frozen=True, slots=True)
class Rotation:
    """Where one hand's button and blinds are, by seat index.

    ``small_blind_seat`` is the seat due to post the small blind, kept even when nobody
    sits there (the next button goes there); ``small_blind_index`` is the seat that posts
    it, None when the small blind is dead. The blinds are None in a hand without blinds.
    """

    button_index: int
    small_blind_seat: int | None = None
    small_blind_index: int | None = None
    big_blind_index: int | None = None

    @property
    def blinds(self) -> BlindSeats | None:
        """The blind seats to start the hand with (None without blinds)."""
        if self.big_blind_index is None:
            return None
        return BlindSeats(
            small_blind_index=self.small_blind_index, big_blind_index=self.big_blind_index
        )


def _left_of_button(dealt: Sequence[int], button_index: int) -> Rotation:
    """The button at ``button_index`` (a player) with the blinds the next players left of
    it; heads-up the button posts the small blind."""
    count = len(dealt)
    position = dealt.index(button_index)
    if count == 2:
        big = dealt[1 - position]
        return Rotation(button_index, button_index, button_index, big)
    small = dealt[(position + 1) % count]
    return Rotation(button_index, small, small, dealt[(position + 2) % count])


def next_rotation(
    rule: ButtonRule,
    dealt: Sequence[int],
    previous: Rotation | None,
    *,
    first_button_index: int | None = None,
    has_blinds: bool = True,
) -> Rotation:
    """The next hand's button and blinds.

    ``dealt`` are the seat indexes of the players with chips, in seat order (at least one;
    the blinds need two). ``previous`` is the last hand's rotation (None before the first
    hand); ``first_button_index`` the first hand's chosen button seat; ``has_blinds`` False
    for a hand with antes only.
    """
    if (
        rule is ButtonRule.DEAD
        and has_blinds
        and len(dealt) >= 2
        and previous is not None
        and previous.big_blind_index is not None
    ):
        # The big blind moves forward exactly one player.
        big = first_at_or_after(list(dealt), previous.big_blind_index + 1)
        if len(dealt) == 2:
            # Heads-up: the other player is the button and posts the small blind.
            other = dealt[0] if big == dealt[1] else dealt[1]
            return Rotation(other, other, other, big)
        small_seat = previous.big_blind_index
        assert previous.small_blind_seat is not None  # a hand with blinds had a small blind seat
        return Rotation(
            button_index=previous.small_blind_seat,
            small_blind_seat=small_seat,
            small_blind_index=small_seat if small_seat in dealt else None,
            big_blind_index=big,
        )
    if previous is None:
        # First hand: the chosen seat, or the first occupied seat clockwise from it.
        start = 0 if first_button_index is None else first_button_index
        button = first_at_or_after(list(dealt), start)
    else:
        # Strictly after the previous button, wrapping around the table.
        button = first_at_or_after(list(dealt), previous.button_index + 1)
    if not has_blinds or len(dealt) < 2:
        return Rotation(button)
    return _left_of_button(dealt, button)
