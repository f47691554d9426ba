"""Properties of random legal five-card-draw play, in all three betting structures.

Random tables (2-10 players, short stacks, blinds, antes or both, every draw limit): play
always ends, chips are conserved after every action, every legal action (bet or discard) is
accepted, every rejected one changes nothing, the same deck and decisions give the same
events (also through a hand history), and no view ever holds a card its seat may not see.
"""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import Action, AllIn, Call, Check, Discard, Fold, LegalActions, RaiseTo
from engine.cards import FULL_DECK, Card, CardParseError
from engine.config import AnteMode, BettingStructure, DrawLimit, GameConfig, Variant
from engine.deck import Deck
from engine.errors import IllegalActionError
from engine.events import (
    ActionTaken,
    AntePosted,
    BlindPosted,
    CardsDrawn,
    HandShown,
    HoleCardsDealt,
    UncalledBetReturned,
)
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history, replay_history
from engine.phases import PlayerStatus

MAX_DECISIONS = 400
ACTIVE, ALL_IN = PlayerStatus.ACTIVE, PlayerStatus.ALL_IN


@dataclass(frozen=True)
class Table:
    """A random five-card-draw setup."""

    config: GameConfig
    stacks: tuple[int, ...]
    button: int
    seed: int


def table_from(rng: random.Random, structure: BettingStructure) -> Table:
    """2-10 seats, blinds and/or antes (or antes only), any draw limit, short stacks."""
    count = rng.randint(2, 10)
    kind = rng.choice(["blinds", "antes", "both", "single_blind"])
    ante = rng.choice([1, 2, 5]) if kind in ("antes", "both") else 0
    small, big = {"blinds": (1, 2), "both": (1, 2), "antes": (0, 0), "single_blind": (0, 2)}[kind]
    config = GameConfig(
        small_blind=small,
        big_blind=big,
        ante=ante,
        ante_mode=AnteMode.BIG_BLIND
        if kind == "both" and rng.random() < 0.3
        else AnteMode.EVERY_PLAYER,
        variant=Variant.FIVE_CARD_DRAW,
        structure=structure,
        max_discard_count=rng.choice([5, 5, 5, 3, 0]),
        draw_limit=rng.choice(list(DrawLimit)),
    )
    stacks = [rng.choice([0, 1, 2, 5, 20, 100, rng.randint(1, 300)]) for _ in range(count)]
    if sum(1 for s in stacks if s > 0) < 2:
        stacks[0] = stacks[-1] = 100
    return Table(config, tuple(stacks), rng.randrange(count), rng.randrange(2**32))


def start(table: Table) -> Hand:
    seats = [SeatSetup(i, f"p{i}", s) for i, s in enumerate(table.stacks)]
    return Hand.start(table.config, seats, button_index=table.button, rng=random.Random(table.seed))


def random_discard(hand: Hand, legal: LegalActions, rng: random.Random) -> Discard:
    """A legal discard: aces are thrown last, so a four-card draw keeps its ace."""
    hole = list(hand.hole_cards(legal.seat_index))
    rng.shuffle(hole)
    hole.sort(key=lambda card: card.rank == "A")
    return Discard(tuple(hole[: rng.randint(0, legal.max_discard_count)]))


def random_bet(legal: LegalActions, rng: random.Random) -> Action:
    choices: list[Action] = [
        Call() if legal.can_call else Check(),
        Check() if legal.can_check else Fold(),
    ]
    if legal.call_amount:
        choices.append(Fold())
    if legal.can_raise:
        choices += [
            RaiseTo(legal.min_raise_to),
            RaiseTo(legal.max_raise_to),
            RaiseTo(rng.randint(legal.min_raise_to, legal.max_raise_to)),
        ]
    if legal.can_all_in:
        choices.append(AllIn())
    return rng.choice(choices)


def illegal_draws(hand: Hand, legal: LegalActions) -> list[tuple[Action, str]]:
    """Draw decisions the menu forbids, with the code each must be rejected with."""
    hole = hand.hole_cards(legal.seat_index)
    outside = next(card for card in FULL_DECK if card not in hole)
    bad: list[tuple[Action, str]] = [
        (Fold(), "not_a_bet"),
        (Call(), "not_a_bet"),
        (RaiseTo(legal.stack + 1), "not_a_bet"),
        (Discard((outside,)), "card_not_in_hand"),
        (Discard((hole[0], hole[0])), "duplicate_discard"),
    ]
    if legal.max_discard_count < 5:
        bad.append((Discard(hole[: legal.max_discard_count + 1]), "too_many_discards"))
    return bad


def illegal_bets(legal: LegalActions) -> list[tuple[Action, str]]:
    bad: list[tuple[Action, str]] = [
        (Discard(()), "not_a_draw"),
        (RaiseTo(legal.all_in_to + 1), "amount_above_stack"),
    ]
    if not legal.can_check:
        bad.append((Check(), "cannot_check"))
    return bad


def snapshot(hand: Hand) -> tuple[Any, ...]:
    return (
        hand.events,
        hand.stacks,
        hand.legal_actions(),
        hand.phase,
        hand.actor_index,
        hand.pot_total,
        hand.seat_states(),
        {seat: hand.hole_cards(seat) for seat in hand.stacks},
    )


def cards_in(value: Any) -> set[Card]:
    """Every card written anywhere in a plain value (views and event dicts)."""
    found: set[Card] = set()
    if isinstance(value, Card):
        found.add(value)
    elif isinstance(value, str) and len(value) == 2:
        with contextlib.suppress(CardParseError):  # phase names, kinds, player ids...
            found.add(Card.parse(value))
    elif isinstance(value, dict):
        for item in value.values():
            found |= cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= cards_in(item)
    return found


def check_views(hand: Hand) -> None:
    """Each seat sees only its own cards (dealt, discarded, drawn) and cards shown."""
    own: dict[int, set[Card]] = {seat: set() for seat in hand.stacks}
    shown: set[Card] = set()
    for event in hand.events:
        if isinstance(event, HoleCardsDealt):
            own[event.seat_index] |= set(event.cards)
        elif isinstance(event, CardsDrawn):
            own[event.seat_index] |= set(event.discarded) | set(event.drawn)
        elif isinstance(event, HandShown):
            shown |= set(event.cards)
    for viewer in [None, *hand.stacks]:
        view = hand.view(viewer)
        allowed = shown | (own[viewer] if viewer is not None else set())
        seen = cards_in(list(view.history)) | set(view.hole_cards) | set(view.board)
        for seat in view.seats:
            seen |= set(seat.shown_cards or ())
        assert seen <= allowed, (viewer, sorted(str(c) for c in seen - allowed))


def play(
    hand: Hand, rng: random.Random, *, probe_illegal: bool = False, check_every: float = 0.0
) -> list[Action]:
    """Play to the end with random legal decisions; check the invariants on the way."""
    total = sum(hand.stacks.values()) + hand.pot_total
    taken: list[Action] = []
    while not hand.is_over:
        assert len(taken) < MAX_DECISIONS, "the hand does not end"
        legal = hand.legal_actions()
        assert legal is not None and legal.seat_index == hand.actor_index
        if probe_illegal:
            bad = illegal_draws(hand, legal) if legal.can_draw else illegal_bets(legal)
            for action, code in bad:
                before = snapshot(hand)
                with pytest.raises(IllegalActionError) as info:
                    hand.act(action)
                assert info.value.code == code, (action, info.value)
                assert snapshot(hand) == before
        if check_every and rng.random() < check_every:
            check_views(hand)
        action = random_discard(hand, legal, rng) if legal.can_draw else random_bet(legal, rng)
        hand.act(action)  # every legal action is accepted
        taken.append(action)
        assert sum(hand.stacks.values()) + hand.pot_total == total  # chips conserved
        assert all(stack >= 0 for stack in hand.stacks.values())
    return taken


def check_finished(hand: Hand, table: Table) -> None:
    result = hand.result
    assert result is not None and result.ended_reason in ("FOLD", "SHOWDOWN")
    assert sum(result.final_stacks.values()) == sum(table.stacks)
    put_in = 0
    for event in hand.events:
        if isinstance(event, AntePosted | BlindPosted | ActionTaken):
            put_in += event.amount
        elif isinstance(event, UncalledBetReturned):
            put_in -= event.amount
    assert sum(a.amount for a in result.awards) == put_in
    # No card is in two live hands (a folded hand is mucked and may be reshuffled), and
    # every player dealt in holds five.
    dealt = [s for s, stack in enumerate(table.stacks) if stack > 0]
    assert all(len(hand.hole_cards(s)) == 5 for s in dealt)
    live = [s.seat_index for s in hand.seat_states() if s.status in (ACTIVE, ALL_IN)]
    holdings = [hand.hole_cards(s) for s in live]
    flat = [card for hole in holdings for card in hole]
    assert len(flat) == len(set(flat)) == 5 * len(holdings)


STRUCTURES = list(BettingStructure)
seeds = st.integers(0, 2**32 - 1)


@pytest.mark.parametrize("structure", STRUCTURES)
@settings(max_examples=100, deadline=None)
@given(table_seed=seeds, policy_seed=seeds)
def test_random_draw_play_ends_conserves_chips_and_rejects_illegal_actions_unchanged(
    structure: BettingStructure, table_seed: int, policy_seed: int
) -> None:
    table = table_from(random.Random(table_seed), structure)
    hand = start(table)
    play(hand, random.Random(policy_seed), probe_illegal=True)
    check_finished(hand, table)


@pytest.mark.parametrize("structure", STRUCTURES)
@settings(max_examples=60, deadline=None)
@given(table_seed=seeds, policy_seed=seeds)
def test_same_deck_and_decisions_give_the_same_draw_events(
    structure: BettingStructure, table_seed: int, policy_seed: int
) -> None:
    table = table_from(random.Random(table_seed), structure)
    first = start(table)
    actions = play(first, random.Random(policy_seed))
    seats = [SeatSetup(i, f"p{i}", s) for i, s in enumerate(table.stacks)]
    # No rng: the reshuffle generator comes from the deck order alone.
    second = Hand.start(table.config, seats, button_index=table.button, deck=Deck(first.deck_order))
    for action in actions:
        second.act(action)
    assert second.events == first.events and second.result == first.result
    assert start(table).deck_order == first.deck_order
    replayed = replay_history(hand_to_history(first, seed=table.seed))
    assert replayed.events == first.events


@pytest.mark.parametrize("structure", STRUCTURES)
@settings(max_examples=40, deadline=None)
@given(table_seed=seeds, policy_seed=seeds)
def test_no_view_holds_a_card_its_seat_may_not_see(
    structure: BettingStructure, table_seed: int, policy_seed: int
) -> None:
    table = table_from(random.Random(table_seed), structure)
    hand = start(table)
    play(hand, random.Random(policy_seed), check_every=0.25)
    check_views(hand)


def test_seeded_sweep_of_draw_hands_reaches_reshuffles_showdowns_and_side_pots() -> None:
    rng = random.Random(5_2_5)
    tally = {"FOLD": 0, "SHOWDOWN": 0, "reshuffle": 0, "side_pot": 0}
    for index in range(600):
        table = table_from(rng, STRUCTURES[index % 3])
        hand = start(table)
        play(hand, rng)
        check_finished(hand, table)
        assert hand.result is not None
        tally[hand.result.ended_reason] += 1
        tally["reshuffle"] += any(e.type == "stub_reshuffled" for e in hand.events)
        tally["side_pot"] += len(hand.result.awards) > 1
    assert min(tally.values()) > 20, tally
