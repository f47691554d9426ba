"""Properties of random legal play (Hypothesis and a plain seeded sweep).

Over thousands of random hands (2-10 players, short stacks, antes, all three betting
structures): play always ends, chips are conserved after every action, every legal action
is accepted, every rejected action changes nothing, the same deck and actions give the same
events, and no seat's view ever holds another seat's hole cards unless they were shown.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.actions import Action, AllIn, Call, Check, Discard, Fold, LegalActions, RaiseTo
from engine.config import AnteMode, BettingStructure, GameConfig
from engine.deck import Deck
from engine.errors import IllegalActionError
from engine.events import ActionTaken, AntePosted, BlindPosted, UncalledBetReturned
from engine.hand import Hand, SeatSetup

MAX_ACTIONS = 400  # far more than any hand needs: 10 players, capped or all-in raises


@dataclass(frozen=True)
class Table:
    """A random hand setup."""

    config: GameConfig
    stacks: tuple[int, ...]
    button: int
    seed: int


def table_from(rng: random.Random) -> Table:
    """A random table: 2-10 seats, some short or empty stacks, antes, any structure."""
    count = rng.randint(2, 10)
    big_blind = rng.choice([2, 2, 4, 10])
    config = GameConfig(
        small_blind=big_blind // 2,
        big_blind=big_blind,
        ante=rng.choice([0, 0, 1, big_blind // 2, big_blind]),
        ante_mode=rng.choice(list(AnteMode)),
        structure=rng.choice(list(BettingStructure)),
    )
    stacks = [
        rng.choice([0, 1, big_blind // 2, big_blind, 3 * big_blind, rng.randint(1, 400), 200])
        for _ in range(count)
    ]
    if sum(1 for s in stacks if s > 0) < 2:
        stacks[0] = stacks[-1] = 100
    return Table(config, tuple(stacks), rng.randrange(count), rng.randrange(2**32))


tables = st.builds(lambda seed: table_from(random.Random(seed)), st.integers(0, 2**32 - 1))


def start(table: Table) -> Hand:
    seats = [SeatSetup(i, f"p{i}", s) for i, s in enumerate(table.stacks)]
    return Hand.start(
        table.config,
        seats,
        button_index=table.button,
        rng=random.Random(table.seed),
    )


def random_legal_action(legal: LegalActions, rng: random.Random) -> Action:
    """Any action the menu allows, boundary amounts included."""
    choices: list[Action] = [Fold(), Call() if legal.can_call else Check()]
    if legal.can_check:
        choices.append(Call())  # leniency: a call with nothing to call checks
    if legal.can_raise:
        choices += [
            RaiseTo(legal.min_raise_to),
            RaiseTo(legal.max_raise_to),
            RaiseTo(rng.randint(legal.min_raise_to, legal.max_raise_to)),
        ]
    if legal.can_all_in:
        choices += [AllIn(), RaiseTo(legal.all_in_to)]
    return rng.choice(choices)


def illegal_actions(legal: LegalActions) -> list[tuple[Action, str]]:
    """Actions the menu forbids, with the code each must be rejected with."""
    bad: list[tuple[Action, str]] = [
        (RaiseTo(legal.all_in_to + 1), "amount_above_stack"),
        (Discard(()), "not_a_draw"),
    ]
    if not legal.can_check:
        bad.append((Check(), "cannot_check"))
    if legal.can_raise:
        below = legal.min_raise_to - 1
        if below < legal.all_in_to and below > legal.current_bet:
            bad.append((RaiseTo(below), "raise_below_minimum"))
        if legal.max_raise_to < legal.all_in_to:
            bad.append((RaiseTo(legal.max_raise_to + 1), "raise_above_maximum"))
    elif legal.current_bet + 1 < legal.all_in_to:
        bad.append((RaiseTo(legal.current_bet + 1), "raising_not_allowed"))
    return bad


def snapshot(hand: Hand) -> tuple[Any, ...]:
    return (
        hand.events,
        hand.stacks,
        hand.legal_actions(),
        hand.phase,
        hand.actor_index,
        hand.pot_total,
        hand.board,
        hand.seat_states(),
    )


def play(hand: Hand, rng: random.Random, *, probe_illegal: bool = False) -> list[Action]:
    """Play ``hand`` to the end with random legal actions; return the actions."""
    total = sum(hand.stacks.values()) + hand.pot_total
    taken: list[Action] = []
    while not hand.is_over:
        assert len(taken) < MAX_ACTIONS, "the hand does not end"
        legal = hand.legal_actions()
        assert legal is not None and legal.seat_index == hand.actor_index
        if probe_illegal:
            for action, code in illegal_actions(legal):
                before = snapshot(hand)
                try:
                    hand.act(action)
                except IllegalActionError as error:
                    assert error.code == code, (action, error)
                else:  # pragma: no cover - a failure
                    raise AssertionError(f"{action} accepted, {code} expected ({legal})")
                assert snapshot(hand) == before
            wrong_seat = next(s for s in hand.stacks if s != legal.seat_index)
            try:
                hand.act(Fold(), seat_index=wrong_seat)
            except IllegalActionError as error:
                assert error.code == "not_your_turn"
        action = random_legal_action(legal, rng)
        hand.act(action)  # every legal action is accepted
        taken.append(action)
        assert sum(hand.stacks.values()) + hand.pot_total == total  # chips conserved
        assert all(stack >= 0 for stack in hand.stacks.values())
    return taken


def check_finished(hand: Hand, table: Table) -> None:
    result = hand.result
    assert result is not None
    assert result.ended_reason in ("FOLD", "SHOWDOWN")
    assert sum(result.final_stacks.values()) == sum(table.stacks)
    # The pots hold exactly what was committed (posts and actions, less uncalled bets).
    put_in = 0
    for event in hand.events:
        if isinstance(event, AntePosted | BlindPosted | ActionTaken):
            put_in += event.amount
        elif isinstance(event, UncalledBetReturned):
            put_in -= event.amount
    assert sum(a.amount for a in result.awards) == put_in
    assert sum(a.amount for a in result.awards) == sum(
        chips for a in result.awards for _, chips in a.shares
    )
    for award in result.awards:
        assert {seat for seat, _ in award.shares} <= set(award.eligible_seat_indexes)


def check_views_hide_hole_cards(hand: Hand) -> None:
    seats = list(hand.stacks)
    shown = hand.shown_cards
    for viewer in [None, *seats]:
        view = hand.view(viewer)
        text = json.dumps(list(view.history))
        for seat in seats:
            if seat == viewer or seat in shown:
                continue
            hidden = hand.hole_cards(seat)
            assert not set(hidden) & set(view.hole_cards)
            for public in view.seats:
                assert public.shown_cards is None or public.seat_index in shown
            for card in hidden:
                assert f'"{card}"' not in text


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables, policy_seed=st.integers(0, 2**32 - 1))
def test_random_legal_play_ends_conserves_chips_and_accepts_every_legal_action(
    table: Table,
    policy_seed: int,
) -> None:
    hand = start(table)
    play(hand, random.Random(policy_seed))
    check_finished(hand, table)


@settings(max_examples=300, deadline=None)
@given(table=tables, policy_seed=st.integers(0, 2**32 - 1))
def test_every_rejected_action_changes_nothing(table: Table, policy_seed: int) -> None:
    hand = start(table)
    play(hand, random.Random(policy_seed), probe_illegal=True)
    check_finished(hand, table)


@settings(max_examples=300, deadline=None)
@given(table=tables, policy_seed=st.integers(0, 2**32 - 1))
def test_same_deck_and_actions_give_the_same_events(table: Table, policy_seed: int) -> None:
    first = start(table)
    actions = play(first, random.Random(policy_seed))
    seats = [SeatSetup(i, f"p{i}", s) for i, s in enumerate(table.stacks)]
    second = Hand.start(
        table.config,
        seats,
        button_index=table.button,
        deck=Deck(first.deck_order),
    )
    for action in actions:
        second.act(action)
    assert [e.to_dict() for e in second.events] == [e.to_dict() for e in first.events]
    assert second.result == first.result
    third = start(table)  # the same seed deals the same deck
    assert third.deck_order == first.deck_order


@settings(max_examples=200, deadline=None)
@given(table=tables, policy_seed=st.integers(0, 2**32 - 1))
def test_view_of_a_seat_never_contains_another_seats_hole_cards_unless_shown(
    table: Table,
    policy_seed: int,
) -> None:
    hand = start(table)
    rng = random.Random(policy_seed)
    while not hand.is_over:
        if rng.random() < 0.2:
            check_views_hide_hole_cards(hand)
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(random_legal_action(legal, rng))
    check_views_hide_hole_cards(hand)


def test_thousands_of_seeded_random_hands_end_with_chips_conserved() -> None:
    rng = random.Random(20240601)
    endings = {"FOLD": 0, "SHOWDOWN": 0}
    side_pots = 0
    for _ in range(3000):
        table = table_from(rng)
        hand = start(table)
        play(hand, rng)
        check_finished(hand, table)
        assert hand.result is not None
        endings[hand.result.ended_reason] += 1
        side_pots += len(hand.result.awards) > 1
    # The sweep really covers both endings and side pots.
    assert min(endings.values()) > 100 and side_pots > 100
