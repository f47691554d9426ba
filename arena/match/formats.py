"""Stack formats: what happens to the chips between the hands of a match.

A format owns the engine's table and answers the questions the loop asks between hands:
deal the next hand, take a finished hand back (who busted), is the match over, and the
final standings. The loop has no branch on the format; a new one is a new class here
with the same methods (:class:`StackFormat`), registered in :func:`format_for`.

* :class:`ResetStacks` (``reset``): every hand starts from the starting stack, as in most
  bot competitions and benchmarks, so the results measure play, not the variance of
  busting. Hands do not depend on each other, so the next one can be dealt early.
* :class:`CarriedStacks` (``carry``): stacks carry from hand to hand; a bot that loses
  every chip is eliminated; the match ends after ``hand_count`` hands or when one bot is
  left.
* :class:`FreezeoutStacks` (``freezeout``): stacks carry until one bot holds every chip
  (``hand_count``, if given, caps the number of hands); finishing places follow the
  engine's freezeout rules.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Protocol

from arena.match.config import MatchConfig, MatchError, StackPolicy
from engine.hand import Hand
from engine.table import Table, hand_rng
from engine.tournament import Freezeout, Standing

__all__ = [
    "CarriedStacks",
    "FreezeoutStacks",
    "ResetStacks",
    "StackFormat",
    "format_for",
]


class StackFormat(Protocol):
    """The questions the match loop asks a format between hands."""

    #: The ``mode`` written in ``results.json``.
    result_mode: ClassVar[str]
    #: True when stacks carry from hand to hand (a final stack means something).
    is_carried: ClassVar[bool]

    @property
    def table(self) -> Table:
        """The engine's table the hands are dealt at."""
        ...

    def deal(self, *, dealt_ahead: Hand | None = None) -> Hand:
        """Start the next hand; ``dealt_ahead`` is used if it is exactly that hand."""
        ...

    def deal_ahead(self, *, after: Hand) -> Hand | None:
        """The hand after ``after`` (the one being played), dealt now, or None when it
        cannot be known yet."""
        ...

    def finish_hand(self, hand: Hand) -> list[str]:
        """Take the finished hand back; returns the players it eliminated."""
        ...

    def is_over(self, hands_played: int) -> bool:
        """True when no further hand is to be dealt."""
        ...

    def standings(self, chips_won: Mapping[str, int]) -> list[Standing]:
        """The final places (``chips_won``: each player's net chips in the match)."""
        ...

    def ended_reason(self) -> str:
        """Why the match ended, for ``results.json``."""
        ...

    def progress_note(self) -> str:
        """A short note for the progress line (empty when there is nothing to add)."""
        ...


class ResetStacks:
    """Every hand starts from the starting stack (see the module docstring)."""

    result_mode: ClassVar[str] = "hands"
    #: False: stacks reset.
    is_carried: ClassVar[bool] = False

    def __init__(
        self,
        config: MatchConfig,
        player_ids: Sequence[str],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._players = [(seat_index, player_id) for seat_index, player_id in enumerate(player_ids)]
        self._table = Table(
            config.game, seat_count=len(player_ids), schedule=config.schedule, clock=clock
        )
        for seat_index, player_id in self._players:
            self._table.join(player_id, config.starting_stack, seat_index=seat_index)

    @property
    def table(self) -> Table:
        """The engine's table."""
        return self._table

    def deal(self, *, dealt_ahead: Hand | None = None) -> Hand:
        """Reset every stack and deal; rejoining at the same seats keeps the button moving."""
        self._table.reset_stacks(self._players, self._config.starting_stack)
        # The table checks that a hand dealt early is exactly the hand due now (same seats,
        # stacks, button and blinds), else it deals again: the same cards either way.
        if dealt_ahead is not None and self._table.is_next_hand(dealt_ahead):
            return self._table.start_hand(dealt=dealt_ahead)
        number = self._table.next_hand_number
        return self._table.start_hand(hand_rng(self._config.seed, number))

    def deal_ahead(self, *, after: Hand) -> Hand | None:
        """The next hand, while ``after`` is played: nothing that hand does changes it.

        Not with a timed blind schedule (its level is read when a hand starts), and not
        after the last hand.
        """
        schedule = self._config.schedule
        if schedule is not None and schedule.is_timed:
            return None
        assert self._config.hand_count is not None  # MatchConfig requires it with reset
        if after.hand_number >= self._config.hand_count:
            return None
        number = self._table.next_hand_number
        return self._table.deal_ahead(hand_rng(self._config.seed, number))

    def finish_hand(self, hand: Hand) -> list[str]:
        """Nobody is eliminated when stacks reset."""
        self._table.finish_hand(hand)
        return []

    def is_over(self, hands_played: int) -> bool:
        """Over after ``hand_count`` hands."""
        assert self._config.hand_count is not None
        return hands_played >= self._config.hand_count

    def standings(self, chips_won: Mapping[str, int]) -> list[Standing]:
        """Places by chips won (equal chips share a place); ``chips`` is the starting stack
        plus the net, the stack a bot would hold had its chips carried."""
        order = {player_id: seat_index for seat_index, player_id in self._players}
        ranked = sorted(chips_won, key=lambda player_id: (-chips_won[player_id], order[player_id]))
        won = [chips_won[player_id] for player_id in ranked]
        return [
            Standing(
                place=1 + won.index(chips_won[player_id]),
                player_id=player_id,
                chips=self._config.starting_stack + chips_won[player_id],
                busted_hand_number=None,
                is_shared=won.count(chips_won[player_id]) > 1,
            )
            for player_id in ranked
        ]

    def ended_reason(self) -> str:
        """Always ``hand_count``."""
        return "hand_count"

    def progress_note(self) -> str:
        """Nothing to add."""
        return ""


class CarriedStacks:
    """Stacks carry from hand to hand; busted bots are out (see the module docstring).

    A carried-stack match is a freezeout that may be cut short after ``hand_count``
    hands: the engine's :class:`~engine.tournament.Freezeout` already places busted
    players and survivors.
    """

    result_mode: ClassVar[str] = "carry"
    #: True: stacks carry.
    is_carried: ClassVar[bool] = True
    #: Why a match ends that stops before one player is left.
    cut_short_reason: ClassVar[str] = "hand_count"

    def __init__(
        self,
        config: MatchConfig,
        player_ids: Sequence[str],
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._freezeout = Freezeout(
            config.game,
            list(player_ids),
            starting_stack=config.starting_stack,
            seed=config.seed,
            schedule=config.schedule,
            clock=clock,
            max_hands=config.hand_count,
        )
        self._total_chips = config.starting_stack * len(player_ids)

    @property
    def table(self) -> Table:
        """The freezeout's table."""
        return self._freezeout.table

    def deal(self, *, dealt_ahead: Hand | None = None) -> Hand:
        """The next hand from the carried stacks (never dealt early)."""
        return self._freezeout.next_hand()

    def deal_ahead(self, *, after: Hand) -> Hand | None:
        """None: the next hand's stacks depend on how this one ends."""
        return None

    def finish_hand(self, hand: Hand) -> list[str]:
        """Settle the stacks, place the busted players and check that no chip was lost."""
        busted = [standing.player_id for standing in self._freezeout.finish_hand(hand)]
        table_total = sum(self.table.stacks.values())
        if table_total != self._total_chips:
            raise MatchError(
                f"after hand {hand.hand_number} the table holds {table_total} chips, "
                f"expected {self._total_chips}",
            )
        return busted

    def is_over(self, hands_played: int) -> bool:
        """Over when one player is left or the hand cap is reached."""
        return self._freezeout.is_over

    def standings(self, chips_won: Mapping[str, int]) -> list[Standing]:
        """The engine's freezeout places."""
        return list(self._freezeout.standings())

    def ended_reason(self) -> str:
        """``one_player_left``, or why it was cut short."""
        if len(self.table.seats) <= 1:
            return "one_player_left"
        return self.cut_short_reason

    def progress_note(self) -> str:
        """How many players are left."""
        return f"{len(self.table.seats)} left"


class FreezeoutStacks(CarriedStacks):
    """Play until one bot holds every chip (see the module docstring)."""

    result_mode: ClassVar[str] = "freezeout"
    # A freezeout cut short by its hand cap: the survivors are placed by chips.
    cut_short_reason: ClassVar[str] = "max_hands"


_FORMATS: dict[StackPolicy, type[ResetStacks] | type[CarriedStacks]] = {
    StackPolicy.RESET: ResetStacks,
    StackPolicy.CARRY: CarriedStacks,
    StackPolicy.FREEZEOUT: FreezeoutStacks,
}


def format_for(
    config: MatchConfig,
    player_ids: Sequence[str],
    *,
    clock: Callable[[], float] = time.monotonic,
) -> StackFormat:
    """The format of ``config.stack_policy``, with its table seated in seat order."""
    return _FORMATS[config.stack_policy](config, player_ids, clock=clock)
