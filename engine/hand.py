"""One hand of poker as a pure, deterministic state machine.

>>> from engine.config import GameConfig
>>> from engine.deck import Deck
>>> from engine.actions import Call, Check
>>> seats = [SeatSetup(0, "ann", 100), SeatSetup(1, "bob", 100)]
>>> hand = Hand.start(GameConfig(small_blind=1, big_blind=2), seats, button_index=0,
...                   deck=Deck.stacked("As Kd Ah Kc"))
>>> hand.phase, hand.actor_index, hand.legal_actions().call_amount
(<Phase.PRE_FLOP: 'PRE_FLOP'>, 0, 1)
>>> _ = hand.act(Call()); _ = hand.act(Check())
>>> str(hand.phase), [str(c) for c in hand.board]
('FLOP', ['2d', '2h', '2s'])

How it runs: ``Hand.start`` posts antes and blinds and then follows the variant's plan
(``engine.variants``) until a player must decide; ``act`` validates the decision against
``legal_actions()`` first (a rejected action changes nothing), then applies it and runs the
plan on. Every change appends events (``engine.events``) and is followed by the invariant
checks of ``engine.invariants``; if one fails the hand is voided and everyone gets back what
they put in. The phase table and the theory of operation are in ``engine.transitions``.

Modules: ``engine.seating`` (seat setups, where the blinds go), ``engine.betting`` (one
betting round's rules and structures), ``engine.settlement`` (folds, showdown, payouts,
voiding), ``engine.showdown`` and ``engine.pots`` (who wins what), ``engine.draw`` (five-card
draw's draw round), ``engine.redaction`` (views), ``engine.transitions`` (the phase table).

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
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.actions import Action, ActionKind, LegalActions
from engine.betting import Move, RoundState
from engine.cards import Card
from engine.config import AnteMode, BettingStructure, GameConfig
from engine.deck import Deck
from engine.draw import DrawRoundState
from engine.errors import IllegalActionError, InvariantError
from engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundComplete,
    BlindPosted,
    CardsDrawn,
    Event,
    HandStarted,
    HoleCardsDealt,
    StreetDealt,
    StubReshuffled,
    UncalledBetReturned,
)
from engine.phases import Phase, PlayerStatus
from engine.pots import Pot, build_pots
from engine.redaction import ViewCache
from engine.result import HandResult
from engine.seating import SeatSetup, SeatState, SetupError, blind_positions, validate_seats
from engine.settlement import Settlement
from engine.variants import PLANS, BettingRound, DealBoard, DealHoleCards, DrawRound, Step
from engine.view import SeatView

__all__ = ["Hand", "SeatSetup", "SeatState", "SetupError"]

_ACTIVE = PlayerStatus.ACTIVE
_FOLDED = PlayerStatus.FOLDED
_ALL_IN = PlayerStatus.ALL_IN
_OUT = PlayerStatus.OUT
_RAISE = ActionKind.RAISE
_FOLD = ActionKind.FOLD


class Hand(Settlement):
    """One deal, from the blinds to the pot distribution. Create it with :meth:`start`."""

    __slots__ = (
        "_bb_pos",
        "_board",
        "_button_pos",
        "_committed",
        "_deck",
        "_deck_order",
        "_draw",
        "_events",
        "_final_aggressor",
        "_holes",
        "_plan",
        "_pos_of",
        "_sb_pos",
        "_seat_indexes",
        "_setups",
        "_shown",
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
        deck: Deck,
        hand_number: int,
    ) -> None:
        """Set up the state; use :meth:`start`, which also posts and deals."""
        self.config = config
        self.hand_number = hand_number
        self.button_index = button_index
        self._setups = tuple(seats)
        self._seat_indexes = [s.seat_index for s in seats]
        self._pos_of = {s: p for p, s in enumerate(self._seat_indexes)}
        validate_seats(seats, button_index)
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
        self._sb_pos, self._bb_pos, self._button_pos = blind_positions(
            [status is not _OUT for status in self._statuses],
            self._pos_of[button_index],
        )

    @classmethod
    def start(
        cls,
        config: GameConfig,
        seats: Sequence[SeatSetup],
        *,
        button_index: int,
        rng: random.Random | None = None,
        deck: Deck | None = None,
        hand_number: int = 1,
    ) -> Hand:
        """Start a hand: post antes and blinds, deal, and run until the first decision.

        ``seats`` are in clockwise order; ``button_index`` is a seat index among them. The
        cards come from ``deck`` if given, else from ``Deck.shuffled(rng)``. ``rng`` only
        shuffles the deck: a five-card-draw reshuffle of the muck is seeded from the deck
        order (``engine.draw.reshuffle_rng``), so a stacked deck without ``rng`` - a test,
        or a replay from a hand history - reshuffles exactly as the original hand did.
        """
        if deck is None:
            if rng is None:
                raise SetupError("no_deck", "Hand.start needs a deck or a seeded rng")
            deck = Deck.shuffled(rng)
        hand = cls(config, seats, button_index=button_index, deck=deck, hand_number=hand_number)
        hand._begin()
        return hand

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
        without one (antes only)."""
        return self._seat_indexes[self._sb_pos] if self.config.small_blind else None

    @property
    def big_blind_index(self) -> int | None:
        """The seat that posted (or was due to post) the big blind; None in a game without
        blinds (antes only)."""
        return self._seat_indexes[self._bb_pos] if self.config.big_blind else None

    @property
    def positions(self) -> dict[int, str]:
        """Seed 000's position names: ``button``, ``small_blind``, ``big_blind``."""
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
        # build_view(self, seat_index, cache) without copying the events; an unknown seat
        # raises SetupError (from hole_cards) before anything is built.
        return self._view_cache.view(self, seat_index, self._events)

    def event_dicts(self) -> list[dict[str, Any]]:
        """``[event.to_dict() for event in hand.events]``, each dict made once per event
        (shared with views and histories: do not mutate)."""
        return self._view_cache.event_dicts(self._events)

    # -- acting ---------------------------------------------------------------------------

    def check_action(self, action: Action, *, seat_index: int | None = None) -> None:
        """Raise ``IllegalActionError`` if ``act(action, seat_index=...)`` would; change
        nothing either way (the dry run behind ``DealerEngine.validate_action``)."""
        self._resolve(action, seat_index)

    def act(self, action: Action, *, seat_index: int | None = None) -> list[Event]:
        """Apply the actor's ``action``; return the events it caused.

        With ``seat_index``, also check that this seat is the one to act. Raises
        ``IllegalActionError`` (and changes nothing) if the action is not legal now.
        """
        resolved = self._resolve(action, seat_index)
        if isinstance(resolved, tuple):
            return self._act_draw(resolved)
        move = resolved
        actor = self._actor
        assert actor is not None and self._round is not None
        # Checked; from here on the hand changes.
        start = len(self._events)
        self._legal = None
        stacks = self._stacks
        committed = self._committed
        add = move.add
        if add:
            stacks[actor] -= add
            self._street[actor] += add
            committed[actor] += add
            self._pot_total += add
        kind = move.kind
        statuses = self._statuses
        if kind is _FOLD:
            statuses[actor] = _FOLDED
        elif stacks[actor] == 0:
            statuses[actor] = _ALL_IN
        is_bet, is_full = self._round.apply(actor, move)
        self._events.append(
            ActionTaken(
                self._seat_indexes[actor],
                self._phase,
                kind,
                add,
                move.total,
                is_bet,
                kind is _RAISE and not is_bet,
                kind is ActionKind.CALL,
                move.is_all_in,
                is_full,
            ),
        )
        try:
            next_actor = self._round.next_actor(actor + 1)
            self._actor = next_actor
            # Only a fold can leave a single player in the hand.
            if next_actor is None or (
                kind is _FOLD and statuses.count(_ACTIVE) + statuses.count(_ALL_IN) <= 1
            ):
                self._run()  # the round or the hand is over: run the plan on
            self._verify()
        except InvariantError as error:
            self._void(str(error))
        return self._events[start:]

    def _act_draw(self, discards: tuple[Card, ...]) -> list[Event]:
        """Five-card draw: throw away the validated ``discards`` and deal the replacements
        (``engine.draw``). How many cards a player drew is public, which ones private."""
        actor = self._actor
        draw = self._draw
        assert actor is not None and draw is not None
        start = len(self._events)
        self._legal = None
        try:
            outcome = draw.apply(actor, discards)
            for card_count in outcome.reshuffled_counts:
                self._events.append(StubReshuffled(card_count))
            seat_index = self._seat_indexes[actor]
            self._events.append(
                CardsDrawn(seat_index, len(discards), outcome.discarded, outcome.drawn),
            )
            self._actor = draw.actor
            if self._actor is None:
                self._run()  # everyone has drawn: the last betting round
            self._verify()
        except InvariantError as error:
            self._void(str(error))
        return self._events[start:]

    # -- the machine ----------------------------------------------------------------------

    def _resolve(self, action: Action, seat_index: int | None) -> Move | tuple[Card, ...]:
        """Check everything about ``action``; change nothing (check first, then change).

        Returns the validated move of a betting round, or the discards of a draw.
        """
        if self._result is not None:
            raise IllegalActionError(
                "hand_is_over",
                f"{action} after the hand ended (hand {self.hand_number}, {self._phase})",
            )
        actor = self._actor
        if actor is None:  # pragma: no cover - a hand that is not over has a player to act
            raise IllegalActionError("not_your_turn", f"nobody is to act ({self._phase})")
        if seat_index is not None and seat_index != self._seat_indexes[actor]:
            raise IllegalActionError(
                "not_your_turn",
                f"seat {seat_index} acted but seat {self._seat_indexes[actor]} is to act "
                f"({self._phase})",
            )
        legal = self._legal or self.legal_actions()
        assert legal is not None
        if self._round is None:
            assert self._draw is not None
            return self._draw.resolve(actor, action, legal, self._phase)
        return self._round.resolve(actor, action, legal, self._phase)

    def _position(self, seat_index: int) -> int:
        try:
            return self._pos_of[seat_index]
        except KeyError:
            raise SetupError("unknown_seat", f"no seat {seat_index} in this hand") from None

    def _begin(self) -> None:
        try:
            self._set_phase(Phase.GAME_STARTED)
            config = self.config
            seat_of = self._seat_indexes
            dealt = self._dealing_order()
            self._events.append(
                HandStarted(
                    self.hand_number,
                    str(config.variant),
                    str(config.structure),
                    config.small_blind,
                    config.big_blind,
                    config.ante,
                    self.button_index,
                    self.small_blind_index,
                    self.big_blind_index,
                    tuple((seat_of[p], self._setups[p].player_id, self._stacks[p]) for p in dealt),
                ),
            )
            if config.ante and config.ante_mode is AnteMode.EVERY_PLAYER:
                for position in dealt:
                    self._post(position, config.ante, None)
            if config.ante and config.ante_mode is AnteMode.BIG_BLIND:
                # TDA big blind ante: the ante is posted first when the stack is short.
                self._post(self._bb_pos, config.ante, None)
            self._post(self._sb_pos, config.small_blind, "small_blind")
            self._post(self._bb_pos, config.big_blind, "big_blind")
            self._set_phase(Phase.BLINDS_POSTED)
            self._run()
            self._verify()
        except InvariantError as error:
            self._void(str(error))

    def _dealing_order(self) -> list[int]:
        count = len(self._statuses)
        button = self._button_pos
        return [
            (button + step) % count
            for step in range(1, count + 1)
            if self._statuses[(button + step) % count] is not _OUT
        ]

    def _post(self, position: int, amount: int, blind: str | None) -> None:
        """Post an ante (``blind`` None) or a blind; a short stack posts all-in for less."""
        amount = min(amount, self._stacks[position])
        if amount <= 0:
            return
        self._stacks[position] -= amount
        self._committed[position] += amount
        self._pot_total += amount
        if blind is not None:
            self._street[position] += amount  # blinds are live bets; antes are dead money
        is_all_in = self._stacks[position] == 0
        if is_all_in:
            self._statuses[position] = _ALL_IN
        seat = self._seat_indexes[position]
        if blind is None:
            self._events.append(AntePosted(seat, amount, is_all_in))
        else:
            self._events.append(BlindPosted(seat, blind, amount, is_all_in))

    def _live_count(self) -> int:
        statuses = self._statuses
        return statuses.count(_ACTIVE) + statuses.count(_ALL_IN)

    def _run(self) -> None:
        """Run the plan until a player must decide or the hand is over."""
        while True:
            if self._live_count() <= 1:
                self._finish_uncontested()
                return
            if self._actor is not None:
                return
            if self._round is not None:
                self._end_round(played=True)
            self._step += 1
            if self._step >= len(self._plan):
                self._finish_showdown()
                return
            step = self._plan[self._step]
            if isinstance(step, BettingRound):
                self._begin_betting(step)
            elif isinstance(step, DealBoard):
                self._deal_board(step)
            elif isinstance(step, DealHoleCards):
                self._deal_hole_cards(step)
            else:
                self._begin_draw(step)

    def _deal_hole_cards(self, step: DealHoleCards) -> None:
        order = self._dealing_order()
        players = len(order)
        cards = self._deck.deal(step.count * players)
        seat_of = self._seat_indexes
        for k, position in enumerate(order):
            # One card at a time round the table, starting left of the button.
            hole = cards[k::players]
            self._holes[position] = hole
            self._events.append(HoleCardsDealt(seat_of[position], tuple(hole)))

    def _deal_board(self, step: DealBoard) -> None:
        self._set_phase(step.phase)
        self._deck.burn()  # burn a card before the flop, the turn and the river
        cards = self._deck.deal(step.count)
        self._board.extend(cards)
        self._events.append(StreetDealt(step.phase, tuple(cards), tuple(self._board)))

    def _begin_draw(self, step: DrawRound) -> None:
        """Five-card draw: everyone still in draws in turn from left of the button (the
        rules are in ``engine.draw``)."""
        self._set_phase(step.phase)
        draw = DrawRoundState(
            config=self.config,
            deck=self._deck,
            deck_order=self._deck_order,
            holes=self._holes,
            statuses=self._statuses,
            button=self._button_pos,
        )
        self._draw = draw
        self._actor = draw.actor

    def _begin_betting(self, step: BettingRound) -> None:
        self._set_phase(step.phase)
        config = self.config
        if config.structure is BettingStructure.FIXED_LIMIT:
            bet_size = config.big_bet if step.uses_big_bet else config.small_bet
        else:
            bet_size = config.minimum_bet  # the minimum bet is the big blind
        round_state = RoundState(
            structure=config.structure,
            bet_size=bet_size,
            raise_cap=config.raise_cap,
            stacks=self._stacks,
            committed=self._street,
            statuses=self._statuses,
            is_first=step.is_first,
        )
        self._round = round_state
        self._final_aggressor = None
        # Pre-flop action starts left of the big blind; later with the first active player
        # left of the button (heads-up: the big blind, since the button is the small blind).
        # With antes only (no blinds) the first round also starts left of the button.
        has_blinds = config.big_blind > 0
        first = (self._bb_pos if step.is_first and has_blinds else self._button_pos) + 1
        self._actor = round_state.next_actor(first % len(self._statuses))
        if self._actor is None:
            # No betting is possible (at most one player has chips): the street passes
            # without a round, which deals the rest of the board at once.
            self._end_round(played=False)

    def _end_round(self, *, played: bool) -> None:
        """Return the uncalled part of the top bet and close the round."""
        street = self._street
        # The uncalled part of the top bet: its excess over the second highest bet.
        top = second = 0
        top_position = 0
        for position, amount in enumerate(street):
            if amount > top:
                second = top
                top = amount
                top_position = position
            elif amount > second:
                second = amount
        if top > second:
            excess = top - second
            self._stacks[top_position] += excess
            street[top_position] -= excess
            self._committed[top_position] -= excess
            self._pot_total -= excess
            if self._statuses[top_position] is _ALL_IN:
                self._statuses[top_position] = _ACTIVE  # chips back: no longer all-in
            self._events.append(UncalledBetReturned(self._seat_indexes[top_position], excess))
        if played:
            assert self._round is not None
            self._final_aggressor = self._round.last_aggressor
            self._events.append(BettingRoundComplete(self._phase, self._pot_total))
        street[:] = [0] * len(street)
        self._round = None
        self._actor = None
        self._legal = None
