"""Differential test: our no-limit five-card draw against pokerkit 0.7.7 on the same cards.

pokerkit has no five-card draw *high* game class (its single-draw games are lowball), so the
state is built directly: one street dealing five down cards, one draw street with a burn
card, ``StandardHighHand``, no-limit, action by position. Both engines get the same deal
(the cards our hand dealt are pinned in pokerkit with ``deal_hole``, the discards with
``stand_pat_or_discard`` and the replacements with ``deal_hole`` again) and the same
decisions, chosen at random from our legal menu. At every betting decision the menus must
agree; at the end the stacks must.

Differences we normalise (documented, not bugs):

* Folding when a check is possible: we allow it (it is binding), pokerkit's tournament mode
  refuses it. The random player never folds when it could check.
* pokerkit discards all first, then burns and deals; we deal each player's replacements
  right after their discard (as a dealer does). The same cards end in the same hands, so
  pokerkit gets our replacements after the last discard. pokerkit always burns a card on a
  draw street; we burn only before a first replacement, so when nobody draws pokerkit
  burns an unknown card (``??``).
* The deck: pokerkit shuffles its own deck with the global ``random``; every card we pin is
  one our deck dealt. After one of our reshuffles a pinned card may be one pokerkit keeps
  in its muck, which it warns about and allows; those warnings are silenced.
* Odd chips: pokerkit gives a split pot's whole remainder to the first winner, we give one
  chip each to the first winners clockwise from the button (identical unless three or more
  players split a pot with two or more odd chips; such hands compare stack totals only).
* Players: pokerkit's player ``i`` is our ``i``-th player dealt in (left of the button first,
  the button last; heads-up the big blind first), which is ``HandStarted.seats``.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import pytest
from pokerkit import (
    Automation,
    Opening,
    StandardHighHand,
    State,
    Street,
)
from pokerkit import BettingStructure as PkStructure
from pokerkit import Deck as PkDeck

from engine.actions import Action, AllIn, Call, Check, Discard, Fold, LegalActions, RaiseTo
from engine.cards import Card
from engine.config import GameConfig, Variant
from engine.events import ActionTaken, CardsDrawn, HandStarted, HoleCardsDealt, PotAwarded
from engine.hand import Hand, SeatSetup
from engine.phases import Phase

HAND_COUNT = 300

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def text(cards: tuple[Card, ...] | list[Card]) -> str:
    """Cards in pokerkit's notation (``"AsTd"``; ours is the same)."""
    return "".join(str(card) for card in cards)


def pokerkit_state(config: GameConfig, stacks: list[int]) -> Any:
    """A pokerkit no-limit five-card draw (high) state, players in our dealing order."""
    min_bet = config.minimum_bet
    streets = (
        Street(False, (False,) * 5, 0, False, Opening.POSITION, min_bet, None),
        Street(True, (), 0, True, Opening.POSITION, min_bet, None),
    )
    return State(
        AUTOMATIONS,
        PkDeck.STANDARD,
        (StandardHighHand,),
        streets,
        PkStructure.NO_LIMIT,
        True,
        config.ante,
        (config.small_blind, config.big_blind),
        0,
        stacks,
        len(stacks),
    )


def random_config(rng: random.Random) -> GameConfig:
    small, big, ante = rng.choice(
        [(1, 2, 0), (1, 2, 0), (1, 2, 1), (0, 0, 2), (0, 2, 0), (5, 10, 2)]
    )
    return GameConfig(small_blind=small, big_blind=big, ante=ante, variant=Variant.FIVE_CARD_DRAW)


def random_bet(legal: LegalActions, rng: random.Random) -> Action:
    """Any legal betting action but a fold when a check is possible (normalised above)."""
    choices: list[Action] = [Check() if legal.can_check else Call()]
    if not legal.can_check:
        choices.append(Fold())
    if legal.can_raise:
        choices += [
            RaiseTo(legal.min_raise_to),
            RaiseTo(rng.randint(legal.min_raise_to, legal.max_raise_to)),
        ]
    if legal.can_all_in:
        choices.append(AllIn())
    return rng.choice(choices)


def compare_menus(legal: LegalActions, state: Any, actor: int, where: str) -> None:
    """Our betting menu against pokerkit's for the same player."""
    assert state.actor_index == actor, where
    assert state.checking_or_calling_amount == legal.call_amount, where
    assert state.can_fold() == (not legal.can_check), where
    can_raise = state.can_complete_bet_or_raise_to()
    assert can_raise == legal.can_raise, where
    if can_raise:
        assert state.min_completion_betting_or_raising_to_amount == legal.min_raise_to, where
        assert state.max_completion_betting_or_raising_to_amount == legal.max_raise_to, where


def odd_chips_differ(hand: Hand) -> bool:
    """True when a pot split three or more ways left two or more odd chips."""
    return any(
        isinstance(e, PotAwarded) and len(e.shares) >= 3 and e.amount % len(e.shares) >= 2
        for e in hand.events
    )


def play_both(seed: int) -> tuple[Hand, Any, list[int]]:
    """Play one random hand in both engines; return them and our seats in pokerkit order."""
    rng = random.Random(seed)
    count = rng.randint(2, 6)
    config = random_config(rng)
    stacks = [rng.choice([rng.randint(1, 40), rng.randint(20, 400), 200]) for _ in range(count)]
    seats = [SeatSetup(i, f"p{i}", stack) for i, stack in enumerate(stacks)]
    hand = Hand.start(config, seats, button_index=rng.randrange(count), rng=rng)
    started = hand.events[0]
    assert isinstance(started, HandStarted)
    order = [seat for seat, _, _ in started.seats]
    index = {seat: k for k, seat in enumerate(order)}
    state = pokerkit_state(config, [stack for _, _, stack in started.seats])
    for event in hand.events:
        if isinstance(event, HoleCardsDealt):
            state.deal_hole(text(event.cards), index[event.seat_index])
    decisions = 0
    while not hand.is_over:
        decisions += 1
        assert decisions < 200
        legal = hand.legal_actions()
        assert legal is not None
        actor = index[legal.seat_index]
        where = f"seed {seed}, decision {decisions}, {hand.phase}"
        if legal.can_draw:
            assert state.stand_patter_or_discarder_index == actor, where
            hole = list(hand.hole_cards(legal.seat_index))
            # Often the most cards allowed, so that six players can run the stub out.
            most = legal.max_discard_count
            discards = tuple(rng.sample(hole, rng.choice([rng.randint(0, most), most])))
            hand.act(Discard(discards))
            state.stand_pat_or_discard(text(discards))
            if hand.phase is not Phase.DRAW:
                # Our draw is over: pokerkit burns, then deals the same replacements.
                state.burn_card("??")
                for event in hand.events:
                    if isinstance(event, CardsDrawn) and event.drawn:
                        state.deal_hole(text(event.drawn), index[event.seat_index])
            continue
        compare_menus(legal, state, actor, where)
        events = hand.act(random_bet(legal, rng))
        taken = next(e for e in events if isinstance(e, ActionTaken))
        if taken.kind == "FOLD":
            state.fold()
        elif taken.kind in ("CHECK", "CALL"):
            state.check_or_call()
        else:
            state.complete_bet_or_raise_to(taken.total)
    return hand, state, order


@pytest.mark.parametrize("block", range(3))
def test_five_card_draw_matches_pokerkit_on_the_same_cards_and_decisions(block: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pinned cards pokerkit holds in its muck
        for seed in range(block * HAND_COUNT // 3, (block + 1) * HAND_COUNT // 3):
            hand, state, order = play_both(seed)
            assert not state.status, f"seed {seed}: pokerkit's hand is not over"
            ours = [hand.stacks[seat] for seat in order]
            theirs = list(state.stacks)
            if odd_chips_differ(hand):
                assert sum(ours) == sum(theirs), f"seed {seed}"
            else:
                assert ours == theirs, f"seed {seed}: ours {ours}, pokerkit {theirs}"


def test_the_differential_covers_draws_showdowns_and_folds() -> None:
    """The random hands reach what the comparison is for (a guard against a vacuous pass)."""
    tally = {"SHOWDOWN": 0, "FOLD": 0, "drawn": 0, "reshuffle": 0, "post_draw_raise": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(60):
            hand, _, _ = play_both(seed)
            assert hand.result is not None
            tally[hand.result.ended_reason] += 1
            tally["drawn"] += any(isinstance(e, CardsDrawn) and e.drawn for e in hand.events)
            tally["reshuffle"] += any(e.type == "stub_reshuffled" for e in hand.events)
            tally["post_draw_raise"] += any(
                isinstance(e, ActionTaken) and e.phase is Phase.POST_DRAW_BET and e.kind == "RAISE"
                for e in hand.events
            )
    assert min(tally.values()) > 0, tally
