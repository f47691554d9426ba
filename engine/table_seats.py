"""A table's seats between hands: who sits where with what, who busted, what is refused.

:class:`engine.table.Table` keeps these values; they are also what it hands out
(``Table.seats``, ``Table.eliminations``) and the error it raises (:class:`TableError`).
The functions here work on the table's seats (a dict by seat index) passed in: seating a
newcomer (:func:`seat_player`), finding a player, the seats a hand is dealt from, and
settling a finished hand's stacks (:func:`settle_seats`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.button import ButtonRule
from engine.errors import EngineError, InvariantError
from engine.seating import SeatSetup

__all__ = ["MAX_SEAT_COUNT", "MIN_SEAT_COUNT", "Elimination", "SeatedPlayer", "TableError"]

MIN_SEAT_COUNT = 2
MAX_SEAT_COUNT = 10


class TableError(EngineError, ValueError):
    """A table operation that is not allowed now; the message names the bad value.

    ``code`` is stable: ``bad_seat_count``, ``bad_seat_index``, ``bad_player_id``,
    ``bad_stack``, ``duplicate_player``, ``table_full``, ``seat_taken``,
    ``unknown_player``, ``hand_in_progress``, ``no_hand_in_progress``, ``wrong_hand``,
    ``hand_not_over``, ``not_enough_players``, ``no_shuffle``, ``no_clock``,
    ``bad_hand_number``, ``bad_button_rule``.
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


def check_table_options(
    seat_count: object,
    first_button_index: object,
    first_hand_number: object,
    *,
    button_rule: object = ButtonRule.MOVING,
    lacks_clock: bool = False,
) -> None:
    """Raise ``TableError`` naming the bad value unless a table can have these options
    (``lacks_clock``: a timed blind schedule was given without a clock function)."""
    if (
        not isinstance(seat_count, int)
        or isinstance(seat_count, bool)
        or not MIN_SEAT_COUNT <= seat_count <= MAX_SEAT_COUNT
    ):
        raise TableError(
            "bad_seat_count",
            f"seat_count must be {MIN_SEAT_COUNT}..{MAX_SEAT_COUNT}, got {seat_count!r}",
        )
    if first_button_index is not None:
        check_seat_index(first_button_index, seat_count)
    if not is_chip_count(first_hand_number) or first_hand_number == 0:
        raise TableError(
            "bad_hand_number",
            f"first_hand_number must be a positive integer, got {first_hand_number!r}",
        )
    if lacks_clock:
        raise TableError("no_clock", "a timed blind schedule needs a clock function (clock=...)")
    if button_rule not in tuple(ButtonRule):
        raise TableError(
            "bad_button_rule", f"button_rule must be a ButtonRule, got {button_rule!r}"
        )


def seat_player(
    seats: dict[int, SeatedPlayer],
    seat_count: int,
    player_id: str,
    stack: int,
    seat_index: int | None,
) -> int:
    """Seat ``player_id`` with ``stack`` chips in ``seats`` (in place) after checking
    everything; returns the seat index, the lowest free one when ``seat_index`` is None."""
    if not isinstance(player_id, str) or not player_id:
        raise TableError(
            "bad_player_id", f"player id must be a non-empty string, got {player_id!r}"
        )
    if not is_chip_count(stack) or stack == 0:
        raise TableError(
            "bad_stack", f"stack for {player_id!r} must be a positive integer, got {stack!r}"
        )
    if any(seat.player_id == player_id for seat in seats.values()):
        raise TableError("duplicate_player", f"player {player_id!r} is already seated")
    if len(seats) >= seat_count:
        raise TableError(
            "table_full",
            f"cannot seat {player_id!r}: all {seat_count} seats are taken",
        )
    if seat_index is None:
        seat_index = min(set(range(seat_count)) - set(seats))
    else:
        check_seat_index(seat_index, seat_count)
        if seat_index in seats:
            raise TableError(
                "seat_taken",
                f"seat {seat_index} is taken by {seats[seat_index].player_id!r}",
            )
    seats[seat_index] = SeatedPlayer(seat_index, player_id, stack)
    return seat_index


def find_seat(seats: dict[int, SeatedPlayer], player_id: str) -> SeatedPlayer:
    """The seat of ``player_id``; an unknown player raises ``TableError``."""
    for seat in seats.values():
        if seat.player_id == player_id:
            return seat
    raise TableError("unknown_player", f"player {player_id!r} is not seated at this table")


def seat_setups(seats: dict[int, SeatedPlayer]) -> tuple[SeatSetup, ...]:
    """The seats as a hand is dealt from them, in seat order."""
    return tuple(
        SeatSetup(
            seat_index=seat.seat_index,
            player_id=seat.player_id,
            stack=seat.stack,
            is_sitting_out=seat.is_sitting_out,
        )
        for _, seat in sorted(seats.items())
    )


def settle_seats(
    seats: dict[int, SeatedPlayer],
    starting_stacks: dict[int, int],
    final_stacks: dict[int, int],
    hand_number: int,
) -> tuple[Elimination, ...]:
    """Copy a finished hand's ``final_stacks`` to ``seats`` (by seat index, in place);
    return the players it busted, who leave their seats.

    The busted are ordered best first: more chips at the start of the hand (in
    ``starting_stacks``), then by seat index. A hand that did not conserve the chips it
    started with is the hand engine's bug: ``InvariantError``, and nothing changes.
    """
    before = sum(starting_stacks.values())
    after = sum(final_stacks.get(index, 0) for index in starting_stacks)
    if set(final_stacks) - set(starting_stacks) or before != after:
        raise InvariantError(
            "chips_not_conserved",
            f"hand {hand_number} ended with stacks {final_stacks} from "
            f"{starting_stacks}: {before} chips before, {after} after",
        )
    busted: list[Elimination] = []
    for index, start in starting_stacks.items():
        seat = seats[index]
        stack = final_stacks.get(index, start)
        if stack == 0:
            busted.append(Elimination(seat.player_id, index, hand_number, start))
            del seats[index]
        elif stack != seat.stack:
            # (The constructor, not dataclasses.replace: this runs after every hand.)
            seats[index] = SeatedPlayer(seat.seat_index, seat.player_id, stack, seat.is_sitting_out)
    busted.sort(key=lambda e: (-e.starting_stack, e.seat_index))
    return tuple(busted)
