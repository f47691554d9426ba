"""The state one hand keeps, and every read-only query of it (``engine.hand`` moves it).

:class:`HandState` holds the seats, stacks, commitments, statuses, cards and events of one
deal, by *position* (an index into the hand's seat list; queries answer by seat index).
:class:`engine.hand.Hand` adds the state machine that changes it; views read it through
``engine.redaction.HandReader``, which this class satisfies.

Choices (documented for the issue notes; see also ``engine.seating`` and
``engine.showdown``):

* Antes are posted before the blinds (each player's ante, or in ``big_blind`` mode one
  ante of ``config.ante`` by the big blind, TDA's big blind ante). A stack shorter than a
  blind or ante posts all-in for less; a big blind who cannot cover both posts the ante
  first (TDA 2019 on, and pokerkit). The big blind ante is dead money in the main pot: it
  makes no side pot (``engine.pots``).
* The bet to call pre-flop is the largest blind actually posted; a raise must still be at
  least a big blind more.
* A player may fold even when they could check (the fold is binding).
* When at most one player can still bet, no one is asked to act: a player whose every
  opponent is all-in and who has matched the bet is not asked to check.
* A game with antes only (no blinds) has no blind seats (``small_blind_index`` and
  ``big_blind_index`` are None) and its first betting round starts left of the button.
* Blind seats given by the caller (:class:`~engine.seating.BlindSeats`, the table's dead
  button rule) may leave the small blind dead (``small_blind_index`` None: nobody posts
  it) and put the button on a seat where nobody sits; ``button_index`` is then that seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.actions import LegalActions
from engine.betting import RoundState
from engine.cards import Card
from engine.config import GameConfig
from engine.deck import Deck
from engine.draw import DrawRoundState
from engine.events import Event
from engine.phases import Phase, PlayerStatus
from engine.pots import Pot, build_pots
from engine.result import HandResult
from engine.seating import (
    BlindSeats,
    SeatSetup,
    SeatState,
    SetupError,
    blind_positions,
    given_blind_positions,
    validate_seats,
)
from engine.settlement import dead_money
from engine.speed.view_cache import ViewCache
from engine.variants import PLANS, Step
from engine.view import SeatView

__all__ = ["HandState"]

_ACTIVE = PlayerStatus.ACTIVE
_ALL_IN = PlayerStatus.ALL_IN
_OUT = PlayerStatus.OUT


class HandState:
    """One deal's state and queries; :class:`engine.hand.Hand` is the one to create."""

    __slots__ = (
        "_actor",
        "_big_blind_position",
        "_board",
        "_button_position",
        "_committed",
        "_deck",
        "_deck_order",
        "_draw",
        "_events",
        "_explicit_blinds",
        "_final_aggressor",
        "_holes",
        "_legal",
        "_phase",
        "_plan",
        "_position_of",
        "_pot_total",
        "_result",
        "_round",
        "_seat_indexes",
        "_setups",
        "_shown",
        "_small_blind_position",
        "_stacks",
        "_starting",
        "_statuses",
        "_step",
        "_street",
        "_total_chips",
        "_view_cache",
        "button_index",
        "config",
        "hand_number",
    )

    def __init__(
        self,
        config: GameConfig,
        seats: Sequence[SeatSetup],
        *,
        button_index: int,
        blinds: BlindSeats | None,
        deck: Deck,
        hand_number: int,
    ) -> None:
        """Set up the state; use ``Hand.start``, which also posts and deals."""
        self.config = config
        self.hand_number = hand_number
        self.button_index = button_index
        self._setups = tuple(seats)
        self._seat_indexes = [s.seat_index for s in seats]
        self._position_of = {s: p for p, s in enumerate(self._seat_indexes)}
        if blinds is not None and not isinstance(blinds, BlindSeats):
            raise SetupError("bad_blinds", f"blinds must be BlindSeats or None, got {blinds!r}")
        if blinds is not None and not config.big_blind:
            raise SetupError("bad_blinds", f"a game without blinds takes no blind seats: {blinds}")
        validate_seats(seats, button_index, blinds)
        self._plan: tuple[Step, ...] = PLANS[config.variant]
        self._deck = deck
        # The original order: a five-card-draw reshuffle replaces the stub in the deck.
        self._deck_order = deck.order
        self._draw: DrawRoundState | None = None
        count = len(seats)
        self._stacks = [s.stack for s in seats]
        self._starting = list(self._stacks)
        self._total_chips = sum(self._stacks)
        self._street = [0] * count
        self._committed = [0] * count
        self._statuses = [_ACTIVE if s.stack > 0 else _OUT for s in seats]
        self._holes: list[list[Card]] = [[] for _ in seats]
        self._board: list[Card] = []
        self._phase = Phase.WAITING_FOR_PLAYERS
        self._events: list[Event] = []
        self._step = -1
        self._round: RoundState | None = None
        self._actor: int | None = None
        self._legal: LegalActions | None = None
        self._pot_total = 0
        self._final_aggressor: int | None = None
        self._result: HandResult | None = None
        self._shown: dict[int, tuple[Card, ...]] = {}
        self._view_cache = ViewCache()  # event dicts and shared view parts (redaction)
        self._small_blind_position: int | None
        self._explicit_blinds: BlindSeats | None = None
        if blinds is None:
            self._small_blind_position, self._big_blind_position, self._button_position = (
                blind_positions(
                    [status is not _OUT for status in self._statuses],
                    self._position_of[button_index],
                )
            )
        else:
            self._small_blind_position, self._big_blind_position, self._button_position = (
                given_blind_positions(seats, button_index, blinds)
            )
            # Blinds where the default rule puts them anyway (a live button, a small blind
            # posted) are the default: a history need not record them.
            is_default = button_index in self._position_of and blinds.small_blind_index is not None
            self._explicit_blinds = None if is_default else blinds

    # -- public queries -------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the hand is now."""
        return self._phase

    @property
    def is_over(self) -> bool:
        """True once the hand is complete (its ``result`` is set)."""
        return self._result is not None

    @property
    def actor_index(self) -> int | None:
        """The seat index of the player who must act now, if any."""
        actor = self._actor
        return None if actor is None else self._seat_indexes[actor]

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event of the hand so far, in order."""
        return tuple(self._events)

    @property
    def result(self) -> HandResult | None:
        """How the hand ended, once it is over."""
        return self._result

    @property
    def stacks(self) -> dict[int, int]:
        """Current stacks (chips not committed) by seat index."""
        return dict(zip(self._seat_indexes, self._stacks, strict=True))

    @property
    def starting_stacks(self) -> dict[int, int]:
        """Stacks at the start of the hand by seat index."""
        return dict(zip(self._seat_indexes, self._starting, strict=True))

    @property
    def deck_order(self) -> tuple[Card, ...]:
        """The deck's whole original order (for hand histories and replays)."""
        return self._deck_order

    @property
    def board(self) -> tuple[Card, ...]:
        """The community cards dealt so far."""
        return tuple(self._board)

    @property
    def seats(self) -> tuple[SeatSetup, ...]:
        """The seats as they were set up."""
        return self._setups

    @property
    def small_blind_index(self) -> int | None:
        """The seat that posted (or was due to post) the small blind; None in a game
        without one (antes only) and when the small blind is dead (nobody posts it)."""
        position = self._small_blind_position
        if position is None or not self.config.small_blind:
            return None
        return self._seat_indexes[position]

    @property
    def explicit_blinds(self) -> BlindSeats | None:
        """The blind seats the hand was started with, when the default rule (the next
        players left of the button) would not put them there: a dead small blind or a dead
        button. None otherwise; a hand history records them only then."""
        return self._explicit_blinds

    @property
    def big_blind_index(self) -> int | None:
        """The seat that posted (or was due to post) the big blind; None in a game without
        blinds (antes only)."""
        return self._seat_indexes[self._big_blind_position] if self.config.big_blind else None

    @property
    def positions(self) -> dict[int, str]:
        """Position names by seat index: ``button``, ``small_blind``, ``big_blind``."""
        names: dict[int, str] = {}
        for seat_index, name in (
            (self.big_blind_index, "big_blind"),
            (self.small_blind_index, "small_blind"),
            (self.button_index, "button"),
        ):
            if seat_index is not None:
                names[seat_index] = name
        return names

    @property
    def pot_total(self) -> int:
        """Every chip committed in the hand (until the pots are paid out)."""
        return self._pot_total

    @property
    def current_bet(self) -> int:
        """The highest commitment on the current betting round (0 between rounds)."""
        return 0 if self._round is None else self._round.current_bet

    @property
    def shown_cards(self) -> dict[int, tuple[Card, ...]]:
        """Hole cards shown at showdown, by seat index."""
        return dict(self._shown)

    def hole_cards(self, seat_index: int) -> tuple[Card, ...]:
        """The hole cards of one seat (server side: not redacted; views use this per seat)."""
        return tuple(self._holes[self._position(seat_index)])

    def seat_states(self) -> tuple[SeatState, ...]:
        """A snapshot of every seat."""
        return tuple(
            SeatState(
                seat_index=setup.seat_index,
                player_id=setup.player_id,
                stack=self._stacks[p],
                status=self._statuses[p],
                street_committed=self._street[p],
                hand_committed=self._committed[p],
                is_sitting_out=setup.is_sitting_out,
                discard_count=None if self._draw is None else self._draw.discard_counts.get(p),
            )
            for p, setup in enumerate(self._setups)
        )

    def seat_rows(self) -> list[tuple[int, PlayerStatus, int, int, int | None]]:
        """What changes of each seat, in seat order, as plain tuples: ``(stack, status,
        street_committed, hand_committed, discard_count)`` (the cheap form of
        :meth:`seat_states` that views compare)."""
        stacks = self._stacks
        draw = self._draw
        # Built by zip in C: a view is built after every change.
        if draw is None:
            discard_counts: list[int | None] = [None] * len(stacks)
        else:
            discard_counts = [draw.discard_counts.get(p) for p in range(len(stacks))]
        return list(
            zip(stacks, self._statuses, self._street, self._committed, discard_counts, strict=True)
        )

    def gathered_pots(self) -> list[Pot]:
        """Pots from the betting rounds already finished (eligible as seat indexes)."""
        gathered = [c - s for c, s in zip(self._committed, self._street, strict=True)]
        statuses = self._statuses
        live = [s is _ACTIVE or s is _ALL_IN for s in statuses]
        all_in = [s is _ALL_IN for s in statuses]
        seat_of = self._seat_indexes
        return [
            Pot(pot.amount, tuple(seat_of[p] for p in pot.eligible))
            for pot in build_pots(gathered, live, all_in, dead_money=self._dead_money())
        ]

    def pots(self) -> list[Pot]:
        """Every chip committed so far as main pot and side pots (eligible seat indexes).

        Before the pots are paid out this includes the current round's bets, so the top
        layer may still hold a bet nobody has called yet.
        """
        if self._result is not None:
            return []
        statuses = self._statuses
        live = [s is _ACTIVE or s is _ALL_IN for s in statuses]
        all_in = [s is _ALL_IN for s in statuses]
        seat_of = self._seat_indexes
        return [
            Pot(pot.amount, tuple(seat_of[p] for p in pot.eligible))
            for pot in build_pots(self._committed, live, all_in, dead_money=self._dead_money())
        ]

    def legal_actions(self) -> LegalActions | None:
        """What the player to act may do now (None when nobody is to act)."""
        legal = self._legal
        actor = self._actor
        if legal is None and actor is not None:
            seat_index = self._seat_indexes[actor]
            if self._round is not None:
                legal = self._round.legal(actor, seat_index, self._pot_total)
            else:
                assert self._draw is not None  # outside a betting round a player draws
                legal = self._draw.legal(actor, seat_index, self._stacks[actor])
            self._legal = legal
        return legal

    def view(self, seat_index: int | None) -> SeatView:
        """The hand as ``seat_index`` may see it (``None``: a spectator)."""
        # Without copying the events; an unknown seat raises SetupError (from hole_cards)
        # before anything is built.
        return self._view_cache.view(self, seat_index, self._events)

    def event_dicts(self) -> list[dict[str, Any]]:
        """``[event.to_dict() for event in hand.events]``, each dict made once per event
        (shared with views and histories: do not mutate)."""
        return self._view_cache.event_dicts(self._events)

    def _position(self, seat_index: int) -> int:
        try:
            return self._position_of[seat_index]
        except KeyError:
            raise SetupError("unknown_seat", f"no seat {seat_index} in this hand") from None

    def _dealing_order(self) -> list[int]:
        """The positions dealt in, clockwise from left of the button."""
        count = len(self._statuses)
        button = self._button_position
        return [
            (button + step) % count
            for step in range(1, count + 1)
            if self._statuses[(button + step) % count] is not _OUT
        ]

    def _live_count(self) -> int:
        """How many players are still in the hand (not folded, not out)."""
        statuses = self._statuses
        return statuses.count(_ACTIVE) + statuses.count(_ALL_IN)

    def _dead_money(self) -> list[int] | None:
        return dead_money(self.config, self._starting, self._big_blind_position)
