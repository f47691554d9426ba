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

Modules: ``engine.hand_state`` (the state a hand keeps and every read-only query of it,
the rules chosen for setting a hand up), ``engine.seating`` (seat setups, where the
blinds go), ``engine.betting`` (one betting round's rules and structures),
``engine.settlement`` (paying the pots, closing and voiding a hand, as functions),
``engine.showdown`` and ``engine.pots`` (who wins what), ``engine.draw`` (five-card draw's
draw round), ``engine.redaction`` (views), ``engine.transitions`` (the phase table),
``engine.speed`` (the hot-path helpers).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine import invariants, settlement
from engine.actions import Action, ActionKind
from engine.betting import Move, RoundState, uncalled_bet
from engine.cards import Card
from engine.config import AnteMode, GameConfig
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
from engine.hand_state import HandState
from engine.phases import Phase, PlayerStatus
from engine.result import PotAward
from engine.seating import BlindSeats, SeatSetup, SeatState, SetupError
from engine.transitions import check_transition
from engine.variants import BettingRound, DealBoard, DealHoleCards, DrawRound

__all__ = ["BlindSeats", "Hand", "SeatSetup", "SeatState", "SetupError"]

_ACTIVE = PlayerStatus.ACTIVE
_FOLDED = PlayerStatus.FOLDED
_ALL_IN = PlayerStatus.ALL_IN
_RAISE = ActionKind.RAISE
_FOLD = ActionKind.FOLD


class Hand(HandState):
    """One deal, from the blinds to the pot distribution. Create it with :meth:`start`."""

    __slots__ = ()

    @classmethod
    def start(
        cls,
        config: GameConfig,
        seats: Sequence[SeatSetup],
        *,
        button_index: int,
        blinds: BlindSeats | None = None,
        rng: random.Random | None = None,
        deck: Deck | None = None,
        hand_number: int = 1,
    ) -> Hand:
        """Start a hand: post antes and blinds, deal, and run until the first decision.

        ``seats`` are in clockwise order; ``button_index`` is a seat index among them.
        ``blinds`` places the blinds instead of the default (the next two players left of
        the button): the table's dead button rule, where the small blind may be dead and
        ``button_index`` may be a seat nobody sits in (``seats`` then in seat-index order;
        see ``engine.seating``).

        The cards come from ``deck`` if given, else from ``Deck.shuffled(rng)``. ``rng``
        only shuffles the deck: a five-card-draw reshuffle of the muck is seeded from the
        deck order (``engine.draw.reshuffle_rng``), so a stacked deck without ``rng`` - a
        test, or a replay from a hand history - reshuffles exactly as the original hand
        did.
        """
        if deck is None:
            if rng is None:
                raise SetupError("no_deck", "Hand.start needs a deck or a seeded rng")
            deck = Deck.shuffled(rng)
        hand = cls(
            config,
            seats,
            button_index=button_index,
            blinds=blinds,
            deck=deck,
            hand_number=hand_number,
        )
        hand._begin()
        return hand

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
            if next_actor is None or (kind is _FOLD and self._live_count() <= 1):
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
                self._post(self._big_blind_position, config.ante, None)
            if self._small_blind_position is not None:  # a dead small blind: nobody posts it
                self._post(self._small_blind_position, config.small_blind, "small_blind")
            self._post(self._big_blind_position, config.big_blind, "big_blind")
            self._set_phase(Phase.BLINDS_POSTED)
            self._run()
            self._verify()
        except InvariantError as error:
            self._void(str(error))

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
            button=self._button_position,
        )
        self._draw = draw
        self._actor = draw.actor

    def _begin_betting(self, step: BettingRound) -> None:
        self._set_phase(step.phase)
        config = self.config
        round_state = RoundState.opening(
            config,
            is_first=step.is_first,
            uses_big_bet=step.uses_big_bet,
            stacks=self._stacks,
            committed=self._street,
            statuses=self._statuses,
        )
        self._round = round_state
        self._final_aggressor = None
        # Pre-flop action starts left of the big blind; later with the first active player
        # left of the button (heads-up: the big blind, since the button is the small blind).
        # With antes only (no blinds) the first round also starts left of the button.
        has_blinds = config.big_blind > 0
        first = (
            self._big_blind_position if step.is_first and has_blinds else self._button_position
        ) + 1
        self._actor = round_state.next_actor(first % len(self._statuses))
        if self._actor is None:
            # No betting is possible (at most one player has chips): the street passes
            # without a round, which deals the rest of the board at once.
            self._end_round(played=False)

    def _end_round(self, *, played: bool) -> None:
        """Return the uncalled part of the top bet and close the round."""
        street = self._street
        uncalled = uncalled_bet(street)
        if uncalled is not None:
            top_position, excess = uncalled
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

    # -- the end of the hand (the rules are in engine.settlement) ------------------------

    def _set_phase(self, phase: Phase) -> None:
        if phase is not self._phase:
            check_transition(self._phase, phase)
            self._phase = phase

    def _finish_uncontested(self) -> None:
        """Everyone else folded: the last player wins every pot and shows nothing."""
        self._end_round(played=False)  # a fold ends the hand during a betting round
        self._set_phase(Phase.POT_DISTRIBUTION)
        payout = settlement.pay_uncontested(self._statuses, self._seat_indexes, self._pot_total)
        self._pay(payout, "FOLD")

    def _finish_showdown(self) -> None:
        self._set_phase(Phase.SHOWDOWN)
        payout = settlement.pay_showdown(
            holes=self._holes,
            board=self._board,
            committed=self._committed,
            statuses=self._statuses,
            seat_indexes=self._seat_indexes,
            button_position=self._button_position,
            first_to_show=self._final_aggressor,
            dead=self._dead_money(),
        )
        self._set_phase(Phase.POT_DISTRIBUTION)
        self._pay(payout, "SHOWDOWN")

    def _pay(self, payout: settlement.Payout, reason: str) -> None:
        """Apply ``payout``, check the end-of-hand invariants, then end the hand."""
        stacks = self._stacks
        for position, chips in payout.winnings:
            stacks[position] += chips
        self._shown.update(payout.shown)
        self._events.extend(payout.events)
        invariants.check_payout(payout.pot_amounts, self._committed, stacks, self._total_chips)
        self._pot_total = 0
        self._end(reason, payout.awards)

    def _end(self, reason: str, awards: tuple[PotAward, ...]) -> None:
        ended, result = settlement.closing(
            reason=reason,
            awards=awards,
            hand_number=self.hand_number,
            seat_indexes=self._seat_indexes,
            stacks=self._stacks,
            starting_stacks=self._starting,
            board=self._board,
            shown=self._shown,
        )
        self._events.append(ended)
        self._phase = Phase.HAND_COMPLETE
        self._actor = None
        self._round = None
        self._legal = None
        self._result = result

    def _verify(self) -> None:
        """Check the invariants after a transition (``engine.invariants``)."""
        if self._result is None:  # (else _pay checked them before the hand ended)
            invariants.verify_chips(
                self._stacks, self._committed, self._statuses, self._total_chips
            )

    def _void(self, reason: str) -> None:
        """Abort the hand and give everyone back what they put in."""
        voided = settlement.void_event(reason, self._committed, self._seat_indexes)
        self._stacks[:] = self._starting
        self._committed[:] = [0] * len(self._committed)
        self._street[:] = [0] * len(self._street)
        self._pot_total = 0
        self._shown.clear()
        self._events.append(voided)
        self._end("VOID", ())
