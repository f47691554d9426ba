"""A table's seats between hands: who sits where with what, who busted, what is refused.

:class:`engine.table.Table` keeps these values; they are also what it hands out
(``Table.seats``, ``Table.eliminations``) and the error it raises (:class:`TableError`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import EngineError

__all__ = ["MAX_SEAT_COUNT", "MIN_SEAT_COUNT", "Elimination", "SeatedPlayer", "TableError"]

MIN_SEAT_COUNT = 2
MAX_SEAT_COUNT = 10


class TableError(EngineError, ValueError):
    """A table operation that is not allowed now; the message names the bad value.

    ``code`` is stable: ``bad_seat_count``, ``bad_seat_index``, ``bad_player_id``,
    ``bad_stack``, ``duplicate_player``, ``table_full``, ``seat_taken``,
    ``unknown_player``, ``hand_in_progress``, ``no_hand_in_progress``, ``wrong_hand``,
    ``hand_not_over``, ``not_enough_players``, ``no_shuffle``, ``no_clock``,
    ``bad_hand_number``.
    """


@dataclass(frozen=True, slots=True)
class SeatedPlayer:
    """A player in a seat between hands (stacks are as of the last finished hand)."""

    seat_index: int
    player_id: str
    stack: int
    is_sitting_out: bool = False

    @property
    def is_dealt_in(self) -> bool:
        """True when the next hand deals this player cards (sitting out or not)."""
        return self.stack > 0


@dataclass(frozen=True, slots=True)
class Elimination:
    """A player who lost every chip: in which hand, from which seat, with what start stack.

    ``starting_stack`` (chips at the start of that hand) orders players who bust in the
    same hand: the one who started it with more chips finishes higher.
    """

    player_id: str
    seat_index: int
    hand_number: int
    starting_stack: int


def is_chip_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_seat_index(seat_index: object, seat_count: int) -> None:
    """Raise ``TableError`` unless ``seat_index`` is a seat of a ``seat_count``-seat table."""
    if (
        not isinstance(seat_index, int)
        or isinstance(seat_index, bool)
        or not 0 <= seat_index < seat_count
    ):
        raise TableError(
            "bad_seat_index",
            f"seat index must be 0..{seat_count - 1}, got {seat_index!r}",
        )


def first_at_or_after(sorted_indexes: list[int], start: int) -> int:
    """The first index >= ``start`` in ``sorted_indexes``, wrapping around to the lowest."""
    for index in sorted_indexes:
        if index >= start:
            return index
    return sorted_indexes[0]
