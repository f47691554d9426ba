"""The ``DealerEngine`` facade: the classic dealer API's names over the hand and a table.

This is a thin facade for callers who think in that API's terms, with its names and its
dicts. Everything real happens in :class:`engine.hand.Hand` (one deal as a state machine)
and :class:`engine.table.Table` (seats, button, blind levels, eliminations). The board is
dealt and the rounds advance by themselves, so ``reveal_community_card`` and
``advance_round`` only report where the hand is.

Each hand's shuffle comes from ``engine.table.hand_rng(seed, hand_number)``, so the same
seed and the same actions replay the same game.

>>> dealer = DealerEngine("holdem", [("ann", 100), ("bob", 100)], [(1, 2)], seed=7)
>>> dealer.start_game(); _ = dealer.start_hand()
>>> dealer.request_player_action("ann")["legal_actions"]
['FOLD', 'CALL', 'RAISE', 'ALL_IN']
>>> _ = dealer.process_action("ann", "FOLD")
>>> [w["player_id"] for w in dealer.determine_winners()]
['bob']
>>> dealer.end_hand().final_stacks
{0: 99, 1: 101}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.actions import Action, AllIn, Call, Check, Fold, RaiseTo
from engine.config import BettingStructure, GameConfig, Variant
from engine.errors import EngineError, IllegalActionError
from engine.events import Event
from engine.hand import Hand
from engine.phases import Phase
from engine.result import HandResult
from engine.schedule import BlindLevel, BlindSchedule
from engine.table import Table, hand_rng

__all__ = ["DealerEngine"]


class DealerEngine:
    """The classic dealer API for one table.

    ``players`` are ``(player_id, stack)`` pairs (or a mapping), seated in order.
    ``blind_levels`` are ``(small_blind, big_blind)`` or ``(small_blind, big_blind, ante)``
    tuples; with more than one, the level goes up every ``hands_per_level`` hands.
    """

    def __init__(
        self,
        game_type: str | Variant = Variant.HOLDEM,
        players: Sequence[tuple[str, int]] | Mapping[str, int] = (),
        blind_levels: Sequence[Sequence[int]] = ((1, 2),),
        *,
        seed: int | str = 0,
        structure: str | BettingStructure = BettingStructure.NO_LIMIT,
        hands_per_level: int = 10,
    ) -> None:
        pairs = list(players.items()) if isinstance(players, Mapping) else list(players)
        if not blind_levels:
            raise EngineError("bad_blinds", "blind_levels needs at least one level")
        levels = [BlindLevel(*level) for level in blind_levels]
        first = levels[0]
        config = GameConfig(
            small_blind=first.small_blind,
            big_blind=first.big_blind,
            ante=first.ante,
            variant=Variant(game_type),
            structure=BettingStructure(structure),
        )
        schedule = BlindSchedule(levels, every_hands=hands_per_level) if len(levels) > 1 else None
        self.table = Table(config, seat_count=max(2, len(pairs)), schedule=schedule)
        self.seed = seed
        self.hand: Hand | None = None
        self._players = pairs
        self._phase = Phase.WAITING_FOR_PLAYERS

    # -- game and hand lifecycle ----------------------------------------------------------

    def start_game(self) -> None:
        """Seat the players (unique ids, at least two with chips)."""
        if self._phase is not Phase.WAITING_FOR_PLAYERS:
            raise EngineError("game_already_started", "start_game was already called")
        for player_id, stack in self._players:
            self.table.join(player_id, stack)
        if not self.table.can_start_hand:
            raise EngineError("not_enough_players", "a game needs two players with chips")
        self._phase = Phase.GAME_STARTED

    def start_hand(self) -> list[Event]:
        """Deal the next hand; returns its first events (blinds posted, cards dealt)."""
        if self._phase is Phase.WAITING_FOR_PLAYERS:
            raise EngineError("game_not_started", "call start_game first")
        number = self.table.next_hand_number
        self.hand = self.table.start_hand(hand_rng(self.seed, number))
        return list(self.hand.events)

    def end_hand(self) -> HandResult:
        """Close the finished hand at the table (stacks copied, busted players out)."""
        hand = self._finished_hand()
        self.table.finish_hand(hand)
        result = hand.result
        assert result is not None
        return result

    # -- actions --------------------------------------------------------------------------

    def request_player_action(self, player_id: str) -> dict[str, Any]:
        """The request to the player to act: what they may see and do."""
        hand = self._hand()
        seat = self._seat_index(player_id)
        if hand.actor_index != seat:
            raise IllegalActionError(
                "not_your_turn",
                f"{player_id} (seat {seat}) is not to act; seat {hand.actor_index} is",
            )
        view = hand.view(seat)
        legal = view.legal_actions
        assert legal is not None
        names = ["FOLD", "CHECK" if legal.can_check else "CALL"]
        if legal.can_raise:
            names.append("RAISE")
        if legal.can_all_in:
            names.append("ALL_IN")
        return {
            "player_id": player_id,
            "game_state": view.phase,
            "hole_cards": [card.to_wire() for card in view.hole_cards],
            "community_cards": [card.to_wire() for card in view.board],
            "current_bet": legal.current_bet,
            "to_call": legal.call_amount,
            "min_raise_to": legal.min_raise_to if legal.can_raise else None,
            "max_raise_to": legal.max_raise_to if legal.can_raise else None,
            "legal_actions": names,
            "player_stack": legal.stack,
            "pot_total": view.pot_total,
            "table_state": self.get_game_state()["players"],
        }

    def process_action(self, player_id: str, action: str, amount: int = 0) -> list[Event]:
        """Apply the dealer API's ``{"action": ..., "amount": ...}``; returns the new events."""
        hand = self._hand()
        seat = self._seat_index(player_id)
        return hand.act(self._action(hand, action, amount), seat_index=seat)

    def validate_action(self, player_id: str, action: str, amount: int = 0) -> None:
        """Raise ``IllegalActionError`` if ``process_action`` would; change nothing."""
        hand = self._hand()
        seat = self._seat_index(player_id)
        hand.check_action(self._action(hand, action, amount), seat_index=seat)

    def reveal_community_card(self, card: object = None) -> tuple[str, ...]:
        """Community cards are dealt by the engine itself (a burn card, then the flop, turn
        or river, as soon as a betting round ends; the whole rest of the board at once when
        nobody can bet any more), so this only returns the board so far."""
        return tuple(str(c) for c in self._hand().board)

    def advance_round(self) -> Phase:
        """Rounds advance by themselves when the last player acts; returns the phase.

        Raises ``EngineError("round_in_progress")`` while a player still has to act.
        """
        hand = self._hand()
        if hand.actor_index is not None:
            raise EngineError(
                "round_in_progress",
                f"seat {hand.actor_index} still has to act in {hand.phase}",
            )
        return hand.phase

    def determine_winners(self) -> list[dict[str, Any]]:
        """The winners of the finished hand, pot by pot (main pot first)."""
        result = self._finished_hand().result
        assert result is not None
        ids = self._player_ids()
        return [
            {"player_id": ids[seat], "seat_index": seat, "amount": chips, "pot_index": a.pot_index}
            for a in result.awards
            for seat, chips in a.shares
        ]

    def distribute_pot(self) -> list[dict[str, Any]]:
        """The pot awards of the finished hand (the chips were paid when it ended)."""
        result = self._finished_hand().result
        assert result is not None
        return [award.to_dict() for award in result.awards]

    # -- state ----------------------------------------------------------------------------

    def get_game_state(self) -> dict[str, Any]:
        """The dealer API's GameState: phase, players, main pot and side pots."""
        hand = self.hand
        if hand is None:
            return {
                "phase": str(self._phase),
                "players": [
                    {"id": p, "position": "", "stack": s, "status": "OUT", "bet": 0}
                    for p, s in self.table.stacks.items()
                ],
                "main_pot": 0,
                "side_pots": [],
            }
        pots = [pot.amount for pot in hand.pots()]
        return {
            "phase": str(hand.phase),
            "players": [self._player_state(hand, s.seat_index) for s in hand.seat_states()],
            "main_pot": pots[0] if pots else 0,
            "side_pots": pots[1:],
            "community_cards": [str(c) for c in hand.board],
            "actor": None if hand.actor_index is None else self._player_ids()[hand.actor_index],
        }

    def get_player_state(self, player_id: str) -> dict[str, Any]:
        """The dealer API's PlayerStatus: id, position, stack, status, bet (this round)."""
        seat = self._seat_index(player_id)
        hand = self.hand
        if hand is None:
            stack = self.table.stacks[player_id]
            return {"id": player_id, "position": "", "stack": stack, "status": "OUT", "bet": 0}
        return self._player_state(hand, seat)

    # -- helpers --------------------------------------------------------------------------

    def _player_state(self, hand: Hand, seat: int) -> dict[str, Any]:
        state = hand.seat_states()[[s.seat_index for s in hand.seats].index(seat)]
        return {
            "id": state.player_id,
            "position": hand.positions.get(seat, ""),
            "stack": state.stack,
            "status": str(state.status),
            "bet": state.street_committed,
        }

    @staticmethod
    def _action(hand: Hand, action: str, amount: int) -> Action:
        name = str(action).upper()
        legal = hand.legal_actions()
        if name == "FOLD":
            return Fold()  # a fold has no amount: one given is ignored
        if name == "CHECK":
            return Check()
        if name == "CALL":
            # A CALL amount, if given, must equal the current bet (what the caller thinks they
            # are calling).
            if amount and legal is not None and amount != legal.current_bet:
                raise IllegalActionError(
                    "bad_amount",
                    f"call amount {amount} is not the current bet {legal.current_bet}",
                )
            return Call()
        if name == "RAISE":
            return RaiseTo(amount)
        if name == "ALL_IN":
            if legal is not None and amount > legal.stack:
                raise IllegalActionError(
                    "amount_above_stack",
                    f"all-in amount {amount} above stack {legal.stack}",
                )
            return AllIn()
        raise IllegalActionError("unknown_action", f"unknown action {action!r}")

    def _hand(self) -> Hand:
        if self.hand is None:
            raise EngineError("no_hand", "no hand has been started (call start_hand)")
        return self.hand

    def _finished_hand(self) -> Hand:
        hand = self._hand()
        if not hand.is_over:
            raise EngineError("hand_not_over", f"the hand is still in {hand.phase}")
        return hand

    def _player_ids(self) -> dict[int, str]:
        return {seat.seat_index: seat.player_id for seat in self._hand().seats}

    def _seat_index(self, player_id: str) -> int:
        for seat in self.table.seats:
            if seat.player_id == player_id:
                return seat.seat_index
        if self.hand is not None:
            for setup in self.hand.seats:
                if setup.player_id == player_id:
                    return setup.seat_index
        raise EngineError("unknown_player", f"no player {player_id!r} at this table")
