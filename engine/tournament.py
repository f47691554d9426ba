"""A freezeout: one table plays until one player holds every chip.

Theory of operation: :class:`Freezeout` seats the players, then deals hand after hand on a
:class:`~engine.table.Table`, each hand shuffled by :func:`~engine.table.hand_rng` from the
match seed and the hand number, so any hand can be dealt again on its own. It never asks a
player anything itself: either the caller drives it step by step (``next_hand()``, act on
the hand until it is over, ``finish_hand(hand)``; what the arena does, since bots answer
asynchronously) or ``play(policy)`` asks a policy function for every decision.

The button follows the tournament "dead button" rule (``ButtonRule.DEAD``, explained in
``engine.button``).

Finishing places: a player who busts finishes below everybody still seated. When several
players bust in the same hand, the one who started that hand with more chips finishes
higher (TDA rule); players who started it with equal chips share the better place (both
are "4th", the next place down is not awarded) and are listed by seat index. If the
freezeout is cut short by ``max_hands``, the players still seated are placed by chip
count, equal counts sharing a place in the same way.

>>> from engine.config import GameConfig
>>> from engine.schedule import BlindSchedule
>>> match = Freezeout(
...     GameConfig(), ["ann", "bob"], starting_stack=100, seed=1,
...     schedule=BlindSchedule.doubling(1, 2, every_hands=10),
... )
>>> match.is_over, match.table.stacks
(False, {'ann': 100, 'bob': 100})
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine.actions import Action
from engine.config import GameConfig
from engine.hand import Hand
from engine.schedule import BlindSchedule
from engine.table import ButtonRule, Elimination, Table, TableError, hand_rng, hand_seed

__all__ = ["Freezeout", "Standing", "TournamentError", "place_eliminations"]


class TournamentError(TableError):
    """A tournament operation that is not allowed now (``code`` is stable).

    Codes besides the table's: ``bad_players``, ``tournament_over``, ``bad_max_hands``.
    """


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's finishing place (1 = winner) and chips at the end.

    ``busted_hand_number`` is the hand the player lost their last chip in (None for
    players still seated); ``is_shared`` is True when another player has the same place.
    """

    place: int
    player_id: str
    chips: int
    busted_hand_number: int | None
    is_shared: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return asdict(self)


def place_eliminations(busted: Sequence[Elimination], *, players_left: int) -> tuple[Standing, ...]:
    """Places for the players busted in one hand while ``players_left`` stay seated.

    They take places ``players_left + 1`` downwards: more chips at the start of the hand
    first; equal starting stacks share the better place (listed by seat index).

    >>> E = Elimination
    >>> busted = [E("a", 0, 9, 50), E("b", 3, 9, 80), E("c", 1, 9, 50)]
    >>> [(s.player_id, s.place, s.is_shared) for s in place_eliminations(busted, players_left=2)]
    [('b', 3, False), ('a', 4, True), ('c', 4, True)]
    """
    ordered = sorted(busted, key=lambda e: (-e.starting_stack, e.seat_index))
    stacks = [e.starting_stack for e in ordered]
    standings = []
    for elimination in ordered:
        first = stacks.index(elimination.starting_stack)
        standings.append(
            Standing(
                place=players_left + 1 + first,
                player_id=elimination.player_id,
                chips=0,
                busted_hand_number=elimination.hand_number,
                is_shared=stacks.count(elimination.starting_stack) > 1,
            )
        )
    return tuple(standings)


def _place_by_chips(chips: Sequence[tuple[str, int, int]]) -> tuple[Standing, ...]:
    """Places 1.. for seated players ``(player_id, seat_index, chips)``, most chips first."""
    ordered = sorted(chips, key=lambda item: (-item[2], item[1]))
    counts = [item[2] for item in ordered]
    return tuple(
        Standing(
            place=1 + counts.index(count),
            player_id=player_id,
            chips=count,
            busted_hand_number=None,
            is_shared=counts.count(count) > 1,
        )
        for player_id, _, count in ordered
    )


class Freezeout:
    """A single-table freezeout: no rebuys; it is over when one player has every chip.

    ``players`` are seated in order at seats 0, 1, ... (``seat_count`` defaults to the
    number of players). ``starting_stack`` is one amount for everyone or a mapping by
    player id. ``seed`` (an int or a string) drives every shuffle through
    :func:`~engine.table.hand_rng`. ``max_hands`` optionally stops the freezeout after that
    many hands (the remaining players are then placed by chips).
    """

    __slots__ = ("_busted_standings", "_max_hands", "_player_ids", "_seed", "_table")

    def __init__(
        self,
        config: GameConfig,
        players: Sequence[str],
        *,
        starting_stack: int | Mapping[str, int],
        seed: int | str,
        schedule: BlindSchedule | None = None,
        clock: Callable[[], float] | None = None,
        seat_count: int | None = None,
        first_button_index: int | None = None,
        max_hands: int | None = None,
    ) -> None:
        player_ids = list(players)
        if len(player_ids) < 2:
            raise TournamentError(
                "bad_players", f"a freezeout needs at least two players, got {player_ids!r}"
            )
        if max_hands is not None and (
            not isinstance(max_hands, int) or isinstance(max_hands, bool) or max_hands < 1
        ):
            raise TournamentError(
                "bad_max_hands", f"max_hands must be a positive integer, got {max_hands!r}"
            )
        if isinstance(starting_stack, Mapping):
            missing = [p for p in player_ids if p not in starting_stack]
            if missing:
                raise TournamentError(
                    "bad_players", f"no starting stack for player(s) {', '.join(missing)}"
                )
        table = Table(
            config,
            seat_count=len(player_ids) if seat_count is None else seat_count,
            schedule=schedule,
            clock=clock,
            first_button_index=first_button_index,
            button_rule=ButtonRule.DEAD,
        )
        for player_id in player_ids:
            stack = (
                starting_stack[player_id] if isinstance(starting_stack, Mapping) else starting_stack
            )
            table.join(player_id, stack)
        self._table = table
        self._seed = seed
        self._player_ids = tuple(player_ids)
        self._max_hands = max_hands
        self._busted_standings: list[Standing] = []

    @property
    def table(self) -> Table:
        """The table the freezeout is played on (seats, stacks, button, hand counter)."""
        return self._table

    @property
    def seed(self) -> int | str:
        """The match seed every hand's shuffle is derived from."""
        return self._seed

    @property
    def player_ids(self) -> tuple[str, ...]:
        """Every entrant, in seating order."""
        return self._player_ids

    @property
    def is_over(self) -> bool:
        """True when one player holds every chip (or ``max_hands`` hands were played)."""
        if self._table.current_hand is not None:
            return False
        if len(self._table.seats) <= 1:
            return True
        return self._max_hands is not None and self._table.hands_played >= self._max_hands

    @property
    def winner(self) -> str | None:
        """The player who won every chip, once the freezeout is over that way."""
        seats = self._table.seats
        if self._table.current_hand is None and len(seats) == 1:
            return seats[0].player_id
        return None

    def hand_seed(self, hand_number: int) -> str:
        """The seed string of hand ``hand_number`` (for hand histories)."""
        return hand_seed(self._seed, hand_number)

    def next_hand(self) -> Hand:
        """Deal the next hand (the caller plays it, then calls :meth:`finish_hand`).

        Everyone seated is dealt in; a freezeout has no sitting out (a player whose bot
        does not answer is folded or checked by the arena's policy, and blinded away).
        """
        if self.is_over:
            raise TournamentError("tournament_over", "the freezeout is over; no more hands")
        rng = hand_rng(self._seed, self._table.next_hand_number)
        return self._table.start_hand(rng)

    def finish_hand(self, hand: Hand) -> tuple[Standing, ...]:
        """Record the finished ``hand``; returns the places of the players it busted."""
        busted = self._table.finish_hand(hand)
        standings = place_eliminations(busted, players_left=len(self._table.seats))
        self._busted_standings.extend(standings)
        return standings

    def standings(self) -> tuple[Standing, ...]:
        """Places so far, best first: seated players by chips, then busted players.

        Once the freezeout is over this is the final result; while it runs, the seated
        players' places are provisional (by current chips).
        """
        seated = _place_by_chips([(s.player_id, s.seat_index, s.stack) for s in self._table.seats])
        busted = sorted(self._busted_standings, key=lambda s: s.place)
        return seated + tuple(busted)

    def play(
        self,
        policy: Callable[[Hand], Action],
        *,
        on_hand_finished: Callable[[Hand], None] | None = None,
    ) -> tuple[Standing, ...]:
        """Play to the end, asking ``policy(hand)`` for every decision; returns standings.

        ``on_hand_finished`` (e.g. to keep hand histories) is called with each hand once
        it is over, before the table applies it.
        """
        while not self.is_over:
            hand = self.next_hand()
            while not hand.is_over:
                hand.act(policy(hand))
            if on_hand_finished is not None:
                on_hand_finished(hand)
            self.finish_hand(hand)
        return self.standings()
