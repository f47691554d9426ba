"""A table of 2 to 10 seats that deals one hand after another.

Theory of operation: between hands players join, leave, sit out and sit in; a hand starts
only when at least two seated players have chips. ``start_hand`` picks the button, takes
the blinds from the blind schedule (if any), deals a :class:`~engine.hand.Hand` and keeps
it as the hand in progress; the caller plays it to the end (``hand.act``) and hands it back
to ``finish_hand``, which copies the final stacks to the seats and eliminates every player
left without chips, recording the hand they busted in. The table never plays a hand itself
and never reads a clock of its own: a timed blind schedule reads the clock function the
caller passed in.

Sitting out is only a flag passed on as ``SeatSetup.is_sitting_out``: the hand engine
still deals that player in and the arena folds for them (the tournament rule: an absent
player is blinded away), so sitting out changes neither the button nor who posts blinds.

How the button and the blinds move is the ``button_rule`` (``engine.button`` has both rules):
the first hand's button is the seat ``first_button_index`` (by default the first occupied
seat).

>>> from engine.actions import Fold
>>> from engine.config import GameConfig
>>> table = Table(GameConfig(small_blind=1, big_blind=2), seat_count=6)
>>> table.join("alice", 200), table.join("bob", 200, seat_index=3)
(0, 3)
>>> table.can_start_hand, table.next_button_index()
(True, 0)
>>> hand = table.start_hand(hand_rng("match-1", table.next_hand_number))
>>> hand.hand_number, hand.button_index
(1, 0)
>>> _ = hand.act(Fold())  # heads-up the button posts the small blind and acts first
>>> table.finish_hand(hand), table.stacks
((), {'alice': 199, 'bob': 201})
>>> table.next_button_index()
3
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from engine.button import ButtonRule, Rotation, next_rotation
from engine.config import GameConfig
from engine.deck import Deck
from engine.hand import Hand
from engine.schedule import BlindLevel, BlindSchedule
from engine.seeds import hand_rng, hand_seed
from engine.table_seats import (
    MAX_SEAT_COUNT,
    MIN_SEAT_COUNT,
    Elimination,
    SeatedPlayer,
    TableError,
    check_table_options,
    find_seat,
    is_chip_count,
    seat_player,
    seat_setups,
    settle_seats,
)

__all__ = [
    "MAX_SEAT_COUNT",
    "MIN_SEAT_COUNT",
    "ButtonRule",
    "Elimination",
    "SeatedPlayer",
    "Table",
    "TableError",
    "hand_rng",
    "hand_seed",
]


class Table:
    """Seats, stacks, the button, the hand counter and the blind level of one table.

    ``config`` gives the game; a ``schedule`` overrides its blinds and ante hand by hand
    (``dataclasses.replace`` on the config). A timed schedule needs ``clock``, a function
    returning seconds (monotonic); the schedule's time starts at the first ``start_hand``
    unless ``started_at`` is given. ``button_rule`` says how the button and the blinds move
    (see the module docstring).
    """

    __slots__ = (
        "_button_rule",
        "_clock",
        "_config",
        "_current_hand",
        "_current_hand_number",
        "_eliminations",
        "_first_button_index",
        "_hands_played",
        "_last_config",
        "_next_hand_number",
        "_rotation",
        "_schedule",
        "_seat_count",
        "_seats",
        "_started_at",
        "_starting_stacks",
    )

    def __init__(
        self,
        config: GameConfig,
        *,
        seat_count: int,
        schedule: BlindSchedule | None = None,
        clock: Callable[[], float] | None = None,
        started_at: float | None = None,
        first_button_index: int | None = None,
        first_hand_number: int = 1,
        button_rule: ButtonRule = ButtonRule.MOVING,
    ) -> None:
        check_table_options(
            seat_count,
            first_button_index,
            first_hand_number,
            button_rule=button_rule,
            lacks_clock=schedule is not None and schedule.is_timed and clock is None,
        )
        self._button_rule = ButtonRule(button_rule)
        self._config = config
        self._seat_count = seat_count
        self._schedule = schedule
        self._clock = clock
        self._started_at = started_at
        self._first_button_index = first_button_index
        self._seats: dict[int, SeatedPlayer] = {}
        self._rotation: Rotation | None = None  # the latest hand's button and blinds
        self._next_hand_number = first_hand_number
        self._hands_played = 0
        self._current_hand: Hand | None = None
        self._current_hand_number = 0
        self._starting_stacks: dict[int, int] = {}
        self._eliminations: list[Elimination] = []
        self._last_config: GameConfig | None = None

    # ----------------------------------------------------------------- properties

    @property
    def config(self) -> GameConfig:
        """The table's game before the blind schedule is applied."""
        return self._config

    @property
    def seat_count(self) -> int:
        """How many seats the table has (2..10)."""
        return self._seat_count

    @property
    def schedule(self) -> BlindSchedule | None:
        """The blind schedule, if the blinds change over time."""
        return self._schedule

    @property
    def seats(self) -> tuple[SeatedPlayer, ...]:
        """The occupied seats in seat order."""
        return tuple(self._seats[index] for index in sorted(self._seats))

    @property
    def player_ids(self) -> tuple[str, ...]:
        """The seated players in seat order."""
        return tuple(seat.player_id for seat in self.seats)

    @property
    def stacks(self) -> dict[str, int]:
        """Chips per seated player, as of the last finished hand."""
        return {seat.player_id: seat.stack for seat in self.seats}

    @property
    def button_rule(self) -> ButtonRule:
        """How the button and the blinds move between hands."""
        return self._button_rule

    @property
    def button_index(self) -> int | None:
        """The button seat of the latest hand started (None before the first hand); under
        the dead button rule it may be a seat where nobody sits."""
        return None if self._rotation is None else self._rotation.button_index

    @property
    def hands_played(self) -> int:
        """How many hands this table has started (drives a schedule counted in hands)."""
        return self._hands_played

    @property
    def next_hand_number(self) -> int:
        """The number the next hand will get."""
        return self._next_hand_number

    @property
    def current_hand(self) -> Hand | None:
        """The hand in progress (started and not yet finished), if any."""
        return self._current_hand

    @property
    def current_hand_number(self) -> int | None:
        """The number of the hand in progress, if any."""
        return self._current_hand_number if self._current_hand is not None else None

    @property
    def last_config(self) -> GameConfig | None:
        """The config (blinds included) of the latest hand started."""
        return self._last_config

    @property
    def eliminations(self) -> tuple[Elimination, ...]:
        """Every player busted at this table, in the order they busted."""
        return tuple(self._eliminations)

    @property
    def dealt_in_count(self) -> int:
        """How many seated players the next hand would deal in."""
        return sum(1 for seat in self._seats.values() if seat.is_dealt_in)

    @property
    def can_start_hand(self) -> bool:
        """True when no hand is in progress and two or more seated players have chips."""
        return self._current_hand is None and self.dealt_in_count >= 2

    def seat_of(self, player_id: str) -> SeatedPlayer:
        """The seat of ``player_id``; an unknown player raises ``TableError``."""
        return find_seat(self._seats, player_id)

    # ------------------------------------------------------------ seat management

    def join(self, player_id: str, stack: int, seat_index: int | None = None) -> int:
        """Seat ``player_id`` with ``stack`` chips; returns the seat index.

        Without ``seat_index`` the player takes the lowest free seat. Joining is allowed
        only between hands (a player who arrives mid-hand waits for the next one).
        """
        self._require_between_hands("join", player_id)
        seat_index = seat_player(self._seats, self._seat_count, player_id, stack, seat_index)
        if self._rotation is not None:
            # The dead button rule has no place for a newcomer: the next hand moves the
            # button on from the last one and the blinds follow it (module ``engine.button``).
            self._rotation = Rotation(self._rotation.button_index)
        return seat_index

    def leave(self, player_id: str) -> SeatedPlayer:
        """Remove ``player_id`` (between hands only); returns the seat as it was left."""
        self._require_between_hands("leave", player_id)
        seat = self.seat_of(player_id)
        del self._seats[seat.seat_index]
        return seat

    def reset_stacks(self, players: Sequence[tuple[int, str]], stack: int) -> None:
        """Between hands: seat exactly ``players`` (``(seat_index, player_id)`` pairs in
        seat order), each with ``stack`` chips and sitting in.

        The same as every seated player leaving and each of ``players`` joining again in
        that order (a match whose stacks reset every hand), without the checks of a new
        arrival when the same players still sit in the same seats.

        >>> table = Table(GameConfig(small_blind=1, big_blind=2), seat_count=2)
        >>> _ = table.join("a", 50, seat_index=0); _ = table.join("b", 150, seat_index=1)
        >>> table.reset_stacks([(0, "a"), (1, "b")], 100)
        >>> table.stacks
        {'a': 100, 'b': 100}
        """
        self._require_between_hands("reset the stacks of", [p for _, p in players])
        if not is_chip_count(stack) or stack == 0:
            raise TableError("bad_stack", f"stack must be a positive integer, got {stack!r}")
        seats = self._seats
        if [(s.seat_index, s.player_id) for s in seats.values()] == list(players):
            for seat_index, player_id in players:
                seats[seat_index] = SeatedPlayer(seat_index, player_id, stack)
            return
        for seat in list(seats.values()):
            self.leave(seat.player_id)
        for seat_index, player_id in players:
            self.join(player_id, stack, seat_index=seat_index)

    def sit_out(self, player_id: str) -> None:
        """Mark ``player_id`` as sitting out from the next hand on (still dealt in: the
        hand engine records the flag and the arena acts for the absent player)."""
        seat = self.seat_of(player_id)
        self._seats[seat.seat_index] = replace(seat, is_sitting_out=True)

    def sit_in(self, player_id: str) -> None:
        """Clear the sitting-out flag from the next hand on."""
        seat = self.seat_of(player_id)
        self._seats[seat.seat_index] = replace(seat, is_sitting_out=False)

    # ------------------------------------------------------------------- hands

    def next_button_index(self) -> int | None:
        """The seat the next hand's button goes to (None if nobody is seated)."""
        # The moving button does not depend on the blinds: no timed level (clock) to read.
        moving = self._button_rule is ButtonRule.MOVING
        rotation = self.next_rotation(self._config if moving else None)
        return None if rotation is None else rotation.button_index

    def next_rotation(self, config: GameConfig | None = None) -> Rotation | None:
        """Where the next hand's button and blinds go (None if nobody is seated), for the
        next hand's game ``config`` (default: the next level's)."""
        dealt_in = sorted(index for index, seat in self._seats.items() if seat.is_dealt_in)
        if not dealt_in:
            return None
        if config is None:
            config = self._next_config()
        return next_rotation(
            self._button_rule,
            dealt_in,
            self._rotation,
            first_button_index=self._first_button_index,
            has_blinds=config.big_blind > 0,
        )

    def next_level(self) -> BlindLevel | None:
        """The blind level the next hand will use (None without a schedule).

        A timed schedule reads the clock here; before the first hand the elapsed time is 0.
        """
        if self._schedule is None:
            return None
        elapsed = 0.0
        if self._schedule.is_timed and self._started_at is not None:
            assert self._clock is not None  # checked in __init__
            elapsed = self._clock() - self._started_at
        return self._schedule.level_for(hands_played=self._hands_played, elapsed_seconds=elapsed)

    def start_hand(
        self,
        rng: random.Random | None = None,
        *,
        deck: Deck | None = None,
        dealt: Hand | None = None,
    ) -> Hand:
        """Deal the next hand and keep it as the hand in progress.

        Give ``rng`` (a seeded generator; see :func:`hand_rng`) or a ``deck`` (stacked,
        for tests and replays). The hand number is the table's counter; the button moves
        as described in the module docstring; the blinds come from the schedule.

        ``dealt`` is a hand from :meth:`deal_ahead`: it becomes the hand in progress as it
        is, without dealing, when :meth:`is_next_hand` says it is exactly the hand due now
        (otherwise ``TableError`` ``stale_hand``; ``rng`` and ``deck`` are not used).
        """
        if self._current_hand is not None:
            raise TableError(
                "hand_in_progress",
                f"hand {self._current_hand_number} is still in progress; finish it first",
            )
        if dealt is not None:
            if not self.is_next_hand(dealt):
                raise TableError(
                    "stale_hand",
                    f"hand {dealt.hand_number} was dealt ahead for another table state "
                    f"(seats, button or blinds changed since)",
                )
            hand = dealt
        else:
            if rng is None and deck is None:
                # The engine never falls back to a global or time-seeded shuffle.
                raise TableError("no_shuffle", "start_hand needs a seeded rng or a deck")
            timed = self._schedule is not None and self._schedule.is_timed
            if timed and self._started_at is None and self.dealt_in_count >= 2:
                # A timed schedule's clock starts with the first hand dealt.
                assert self._clock is not None
                self._started_at = self._clock()
            hand = self._deal(rng, deck)
        rotation = self.next_rotation(hand.config)
        # Only after the deal succeeded: a failed start leaves the table unchanged.
        self._current_hand = hand
        self._current_hand_number = hand.hand_number
        self._rotation = rotation
        self._last_config = hand.config
        self._starting_stacks = {seat.seat_index: seat.stack for seat in hand.seats}
        self._next_hand_number += 1
        self._hands_played += 1
        return hand

    def deal_ahead(self, rng: random.Random | None = None, *, deck: Deck | None = None) -> Hand:
        """Deal the hand :meth:`start_hand` would deal next, without starting it.

        Callable while a hand is in progress: the hand dealt is then the one that follows
        it if every seat keeps its seat and its stack at the start of that hand, which is
        how a match whose stacks are reset every hand goes on (the arena deals its next
        hand while a bot thinks). The table does not change. Pass the hand to
        :meth:`start_hand` as ``dealt``; if anything changed meanwhile (a player left or
        busted, a stack or a timed blind level), :meth:`is_next_hand` is False and the
        hand must be dealt again.
        """
        if rng is None and deck is None:
            raise TableError("no_shuffle", "deal_ahead needs a seeded rng or a deck")
        return self._deal(rng, deck)

    def is_next_hand(self, hand: Hand) -> bool:
        """True when ``hand`` (from :meth:`deal_ahead`, not acted on) is exactly the hand
        the table would deal now: no hand in progress, and the same number, seats and
        stacks, button and blinds.

        (The cards are the caller's business, as with ``rng`` in :meth:`start_hand`.)
        """
        if self._current_hand is not None or hand.hand_number != self._next_hand_number:
            return False
        if hand.seats != seat_setups(self._seats):
            return False
        # (Equal seats hold the hand's two or more players with chips.)
        config = self._next_config()
        if hand.config != config:
            return False
        rotation = self.next_rotation(config)
        assert rotation is not None
        small = rotation.small_blind_index if config.small_blind else None
        expected = (rotation.button_index, small, rotation.big_blind_index)
        return (hand.button_index, hand.small_blind_index, hand.big_blind_index) == expected

    def _next_config(self) -> GameConfig:
        """The config of the next hand: the table's, with the next level's blinds."""
        level = self.next_level()
        return self._config if level is None else level.apply(self._config)

    def _deal(self, rng: random.Random | None, deck: Deck | None) -> Hand:
        """The next hand from the table as it is now (``start_hand`` and ``deal_ahead``)."""
        if self.dealt_in_count < 2:
            raise TableError(
                "not_enough_players",
                f"a hand needs at least two players with chips, found {self.dealt_in_count}",
            )
        config = self._next_config()
        rotation = self.next_rotation(config)
        assert rotation is not None  # at least two seats are dealt in
        return Hand.start(
            config,
            seat_setups(self._seats),
            button_index=rotation.button_index,
            # The moving button's blinds are the hand's default ones.
            blinds=rotation.blinds if self._button_rule is ButtonRule.DEAD else None,
            rng=rng,
            deck=deck,
            hand_number=self._next_hand_number,
        )

    def finish_hand(self, hand: Hand) -> tuple[Elimination, ...]:
        """Apply the final stacks of the finished ``hand``; returns the players it busted.

        Busted players (no chips left) leave their seats and are recorded as eliminated
        in this hand, ordered best first: more chips at the start of the hand first, then
        by seat index.
        """
        if self._current_hand is None:
            raise TableError("no_hand_in_progress", "no hand is in progress to finish")
        if hand is not self._current_hand:
            raise TableError(
                "wrong_hand",
                f"this is not the hand in progress (hand {self._current_hand_number})",
            )
        if not hand.is_over:
            raise TableError(
                "hand_not_over",
                f"hand {self._current_hand_number} is not over (phase {hand.phase})",
            )
        busted = settle_seats(
            self._seats, self._starting_stacks, hand.stacks, self._current_hand_number
        )
        self._eliminations.extend(busted)
        self._current_hand = None
        self._starting_stacks = {}
        return busted

    # ----------------------------------------------------------------- helpers

    def _require_between_hands(self, operation: str, player_id: object) -> None:
        if self._current_hand is not None:
            raise TableError(
                "hand_in_progress",
                f"cannot {operation} {player_id!r} during hand {self._current_hand_number}; "
                "wait until it is finished",
            )
