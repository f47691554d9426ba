"""No-limit, pot-limit and fixed-limit bet sizes, each test named after its rule."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engine.actions import AllIn, Call, Check, Fold, LegalActions, RaiseTo
from engine.config import BettingStructure, GameConfig
from engine.deck import Deck
from engine.errors import IllegalActionError
from engine.events import ActionTaken
from engine.hand import Hand, SeatSetup
from engine.phases import Phase

PL = GameConfig(small_blind=1, big_blind=2, structure=BettingStructure.POT_LIMIT)
FL = GameConfig(small_blind=1, big_blind=2, structure=BettingStructure.FIXED_LIMIT)


def start(stacks: Sequence[int], config: GameConfig, *, button: int = 0) -> Hand:
    seats = [SeatSetup(i, f"p{i}", stack) for i, stack in enumerate(stacks)]
    return Hand.start(config, seats, button_index=button, deck=Deck.stacked([]))


def legal(hand: Hand) -> LegalActions:
    actions = hand.legal_actions()
    assert actions is not None
    return actions


# -- no-limit ------------------------------------------------------------------------------


def test_no_limit_max_raise_is_the_whole_stack() -> None:
    hand = start([100, 100, 100], GameConfig(small_blind=1, big_blind=2))
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (4, 100)
    assert legal(hand).can_all_in


def test_raising_is_not_allowed_when_every_opponent_is_all_in() -> None:
    hand = start([100, 30, 100], GameConfig(small_blind=1, big_blind=2))
    hand.act(Fold())  # seat 0
    hand.act(AllIn())  # seat 1: 30
    actions = legal(hand)
    assert actions.can_call and not actions.can_raise and not actions.can_all_in
    with pytest.raises(IllegalActionError) as info:
        hand.act(AllIn())
    assert info.value.code == "raising_not_allowed"
    assert "no opponent could call a raise" in str(info.value)


# -- pot-limit -----------------------------------------------------------------------------


def test_pot_limit_max_raise_is_current_bet_plus_pot_after_calling() -> None:
    hand = start([1000] * 3, PL)
    # Blinds 1 + 2 = 3 in the pot; calling 2 makes it 5; raise by 5: to 7.
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (4, 7)
    hand.act(RaiseTo(7))
    # Small blind: pot 10, calling 6 makes it 16: raise to 7 + 16 = 23.
    assert legal(hand).max_raise_to == 23


def test_pot_limit_opening_bet_is_at_most_the_pot() -> None:
    hand = start([1000] * 3, PL)
    for _ in range(2):
        hand.act(Call())
    hand.act(Check())
    assert hand.phase is Phase.FLOP
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (2, 6)


def test_pot_limit_raise_above_the_pot_is_rejected_raise_above_maximum() -> None:
    hand = start([1000] * 3, PL)
    with pytest.raises(IllegalActionError) as info:
        hand.act(RaiseTo(8))
    assert info.value.code == "raise_above_maximum"
    assert str(info.value) == "raise to 8 above maximum 7 (seat 0, PRE_FLOP)"
    assert not legal(hand).can_all_in
    with pytest.raises(IllegalActionError):
        hand.act(AllIn())


def test_pot_limit_short_stack_may_go_all_in_below_the_pot() -> None:
    hand = start([6, 1000, 1000], PL)
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (4, 6)
    assert legal(hand).can_all_in
    hand.act(AllIn())


# -- fixed-limit ---------------------------------------------------------------------------


def test_fixed_limit_bets_are_one_small_bet_preflop_and_on_the_flop() -> None:
    hand = start([1000] * 3, FL)
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (4, 4)
    with pytest.raises(IllegalActionError) as info:
        hand.act(RaiseTo(6))
    assert info.value.code == "raise_above_maximum"
    for _ in range(2):
        hand.act(Call())
    hand.act(Check())
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (2, 2)


def test_fixed_limit_bets_are_one_big_bet_on_the_turn_and_river() -> None:
    hand = start([1000] * 2, FL)
    hand.act(Call())
    hand.act(Check())
    hand.act(Check())
    hand.act(Check())
    assert hand.phase is Phase.TURN
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (4, 4)
    hand.act(RaiseTo(4))
    assert (legal(hand).min_raise_to, legal(hand).max_raise_to) == (8, 8)


def test_fixed_limit_cap_is_one_bet_and_three_raises() -> None:
    hand = start([1000] * 3, FL)
    hand.act(RaiseTo(4))  # the big blind was the bet: raise 1
    hand.act(RaiseTo(6))  # raise 2
    hand.act(RaiseTo(8))  # raise 3: capped
    actions = legal(hand)
    assert actions.can_call and not actions.can_raise
    with pytest.raises(IllegalActionError) as info:
        hand.act(RaiseTo(10))
    assert info.value.code == "raising_not_allowed"
    assert "the cap of 4 bets is reached" in str(info.value)


def test_fixed_limit_cap_lifted_heads_up_by_default() -> None:
    hand = start([1000] * 2, FL)
    for total in (4, 6, 8, 10, 12):
        hand.act(RaiseTo(total))
    assert legal(hand).can_raise


def test_fixed_limit_cap_kept_heads_up_when_asked() -> None:
    config = GameConfig(
        small_blind=1, big_blind=2, structure=BettingStructure.FIXED_LIMIT, cap_heads_up=True
    )
    hand = start([1000] * 2, config)
    for total in (4, 6, 8):  # the big blind and three raises
        hand.act(RaiseTo(total))
    actions = legal(hand)
    assert actions.can_call and not actions.can_raise
    with pytest.raises(IllegalActionError, match="the cap of 4 bets is reached"):
        hand.act(RaiseTo(10))
    hand.act(Call())
    # The flop: a bet and three raises, then the cap again.
    for total in (2, 4, 6, 8):
        hand.act(RaiseTo(total))
    assert not legal(hand).can_raise


def test_fixed_limit_cap_kept_when_two_players_remain_if_asked() -> None:
    config = GameConfig(
        small_blind=1, big_blind=2, structure=BettingStructure.FIXED_LIMIT, cap_heads_up=True
    )
    hand = start([1000] * 3, config)
    hand.act(Fold())
    for total in (4, 6, 8):
        hand.act(RaiseTo(total))
    assert not legal(hand).can_raise


def test_fixed_limit_cap_is_lifted_when_only_two_players_remain() -> None:
    hand = start([1000] * 3, FL)
    hand.act(Fold())
    for total in (4, 6, 8, 10):
        hand.act(RaiseTo(total))
    assert legal(hand).can_raise


def test_fixed_limit_all_in_of_half_a_bet_reopens_the_betting() -> None:
    hand = start([1000, 1000, 1000, 5], FL)
    for _ in range(3):
        hand.act(Call())  # 3, 0, 1
    hand.act(Check())  # 2
    hand.act(RaiseTo(2))  # flop: seat 1 bets one small bet
    hand.act(Call())  # seat 2
    hand.act(AllIn())  # seat 3 has 3 left: to 3, a raise of 1, half a bet
    assert [e for e in hand.events if isinstance(e, ActionTaken)][-1].is_full_raise
    hand.act(Call())  # seat 0
    actions = legal(hand)
    assert actions.seat_index == 1 and actions.can_raise
    assert (actions.min_raise_to, actions.max_raise_to) == (5, 5)


def test_fixed_limit_short_all_in_raise_below_half_a_bet_does_not_reopen() -> None:
    hand = start([1000, 1000, 1000, 7], FL)
    for _ in range(3):
        hand.act(Call())
    hand.act(Check())
    for _ in range(4):
        hand.act(Check())
    hand.act(RaiseTo(4))  # turn: seat 1 bets a big bet of 4
    hand.act(Call())  # seat 2
    hand.act(AllIn())  # seat 3 has 5 left: to 5, a raise of 1 (< half of 4)
    assert not [e for e in hand.events if isinstance(e, ActionTaken)][-1].is_full_raise
    hand.act(Call())  # seat 0 had not acted: it could raise, calls
    actions = legal(hand)
    assert actions.seat_index == 1 and actions.call_amount == 1 and not actions.can_raise


def test_all_in_is_legal_as_a_call_for_the_whole_stack_but_not_for_an_empty_stack() -> None:
    short = LegalActions(0, 5, 10, 0, True, False, True, 5, False, 0, 0)
    assert short.can_all_in and short.all_in_to == 5
    empty = LegalActions(0, 0, 10, 10, True, True, False, 0, False, 0, 0)
    assert not empty.can_all_in
    draw = LegalActions(0, 5, 0, 0, False, False, False, 0, False, 0, 0, True, 3)
    assert draw.is_draw and not draw.can_all_in
