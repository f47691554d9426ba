"""Scenario tests of the hold'em hand, each named after the rule it checks."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from engine.actions import AllIn, Call, Check, Fold, RaiseTo
from engine.cards import FULL_DECK, Card, parse_cards
from engine.config import AnteMode, GameConfig
from engine.deck import Deck
from engine.errors import IllegalActionError
from engine.events import (
    ActionTaken,
    AntePosted,
    BlindPosted,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    StreetDealt,
    UncalledBetReturned,
    public_dict,
)
from engine.hand import Hand, SeatSetup
from engine.phases import Phase, PlayerStatus

NL = GameConfig(small_blind=1, big_blind=2)


def stacked(order: Sequence[int], holes: dict[int, str], board: str = "") -> Deck:
    """A deck dealing ``holes`` (seat -> "AsKd") in dealing ``order`` and then ``board``.

    Burn cards are taken from the unused cards so the board is exactly ``board``.
    """
    parsed = {seat: parse_cards(text) for seat, text in holes.items()}
    count = len(next(iter(parsed.values())))
    top: list[Card] = [parsed[seat][k] for k in range(count) for seat in order]
    board_cards = parse_cards(board)
    used = set(top) | set(board_cards)
    spare = iter(c for c in FULL_DECK if c not in used)
    for street in (board_cards[:3], board_cards[3:4], board_cards[4:5]):
        if street:
            top.append(next(spare))
            top.extend(street)
    return Deck.stacked(top)


def start(
    stacks: Sequence[int],
    *,
    button: int = 0,
    config: GameConfig = NL,
    holes: dict[int, str] | None = None,
    board: str = "",
) -> Hand:
    """A hand with seats 0..n-1 holding ``stacks``."""
    seats = [SeatSetup(i, f"p{i}", stack) for i, stack in enumerate(stacks)]
    if holes is None:
        deck = Deck.stacked([])
    else:
        deck = stacked(_dealing_order(stacks, button), holes, board)
    return Hand.start(config, seats, button_index=button, deck=deck)


def _dealing_order(stacks: Sequence[int], button: int) -> list[int]:
    count = len(stacks)
    live = [s for s in range(count) if stacks[s]]
    if len(live) == 2 and stacks[button]:
        # Heads-up: the button is the small blind; dealing starts with the big blind.
        other = live[0] if live[1] == button else live[1]
        return [other, button]
    return [(button + k) % count for k in range(1, count + 1) if stacks[(button + k) % count]]


def actions_of(hand: Hand) -> list[ActionTaken]:
    return [e for e in hand.events if isinstance(e, ActionTaken)]


# -- blinds, antes, order of action ---------------------------------------------------------


def test_heads_up_button_posts_small_blind_and_acts_first_preflop() -> None:
    hand = start([100, 100], button=1)
    blinds = [e for e in hand.events if isinstance(e, BlindPosted)]
    assert [(b.seat_index, b.blind, b.amount) for b in blinds] == [
        (1, "small_blind", 1),
        (0, "big_blind", 2),
    ]
    assert hand.small_blind_index == 1
    assert hand.actor_index == 1


def test_heads_up_button_acts_last_after_the_flop() -> None:
    hand = start([100, 100], button=1)
    hand.act(Call())
    hand.act(Check())
    assert hand.phase is Phase.FLOP
    assert hand.actor_index == 0  # the big blind acts first after the flop
    hand.act(Check())
    assert hand.actor_index == 1


def test_preflop_action_starts_left_of_big_blind() -> None:
    hand = start([100] * 5, button=3)
    assert (hand.small_blind_index, hand.big_blind_index) == (4, 0)
    assert hand.actor_index == 1


def test_big_blind_has_the_option_when_everyone_limps() -> None:
    hand = start([100] * 3, button=0)
    hand.act(Call())  # button
    hand.act(Call())  # small blind completes
    assert hand.actor_index == 2
    legal = hand.legal_actions()
    assert legal is not None and legal.can_check and legal.can_raise


def test_postflop_action_starts_with_first_active_player_left_of_button() -> None:
    hand = start([100] * 4, button=0)
    hand.act(Call())  # seat 3 (left of BB 2)
    hand.act(Call())  # button 0
    hand.act(Fold())  # small blind 1 folds
    hand.act(Check())  # big blind 2
    assert hand.phase is Phase.FLOP
    assert hand.actor_index == 2  # seat 1 folded, so seat 2 is first left of the button


def test_blind_shorter_than_stack_posts_all_in_for_less() -> None:
    hand = start([100, 100, 1], button=0)
    blinds = [e for e in hand.events if isinstance(e, BlindPosted)]
    assert (blinds[1].seat_index, blinds[1].amount, blinds[1].is_all_in) == (2, 1, True)
    assert hand.seat_states()[2].status is PlayerStatus.ALL_IN
    # The bet to call is the largest blind posted; a raise is at least one big blind more.
    legal = hand.legal_actions()
    assert legal is not None
    assert (legal.seat_index, legal.call_amount, legal.min_raise_to) == (0, 1, 3)


def test_ante_shorter_than_stack_posts_all_in_for_less() -> None:
    config = GameConfig(small_blind=1, big_blind=2, ante=5)
    hand = start([100, 3, 100], button=0, config=config)
    antes = [e for e in hand.events if isinstance(e, AntePosted)]
    assert [(a.seat_index, a.amount, a.is_all_in) for a in antes] == [
        (1, 3, True),
        (2, 5, False),
        (0, 5, False),
    ]
    # The all-in player posts no blind; the big blind still posts.
    blinds = [e for e in hand.events if isinstance(e, BlindPosted)]
    assert [(b.seat_index, b.amount) for b in blinds] == [(2, 2)]
    assert hand.pot_total == 15


def test_big_blind_ante_is_posted_first_when_the_big_blind_is_short_tda() -> None:
    # TDA (2019 on, and pokerkit): a big blind who cannot cover both posts the ante first.
    config = GameConfig(small_blind=1, big_blind=2, ante=2, ante_mode=AnteMode.BIG_BLIND)
    hand = start([100, 100, 3], button=0, config=config)
    posts = [e for e in hand.events if isinstance(e, BlindPosted | AntePosted)]
    assert [(type(p).__name__, p.seat_index, p.amount, p.is_all_in) for p in posts] == [
        ("AntePosted", 2, 2, False),
        ("BlindPosted", 1, 1, False),
        ("BlindPosted", 2, 1, True),  # the rest of the stack: a big blind for less
    ]


def test_seat_with_empty_stack_is_not_dealt_in() -> None:
    hand = start([100, 0, 100, 100], button=0)
    states = {s.seat_index: s for s in hand.seat_states()}
    assert states[1].status is PlayerStatus.OUT
    assert hand.hole_cards(1) == ()
    assert (hand.small_blind_index, hand.big_blind_index) == (2, 3)


def test_sitting_out_seat_is_dealt_in_and_posts_its_blind() -> None:
    seats = [SeatSetup(0, "a", 100), SeatSetup(1, "b", 100, is_sitting_out=True)]
    hand = Hand.start(NL, seats, button_index=0, deck=Deck.stacked([]))
    assert len(hand.hole_cards(1)) == 2
    assert hand.seat_states()[1].is_sitting_out
    assert hand.pot_total == 3


def test_dead_button_blinds_go_to_next_players_dealt_in() -> None:
    hand = start([0, 100, 100, 100], button=0)
    assert (hand.small_blind_index, hand.big_blind_index) == (1, 2)
    assert hand.actor_index == 3


def test_heads_up_with_dead_button_small_blind_acts_first_preflop_last_after() -> None:
    hand = start([0, 100, 100], button=0)
    assert (hand.small_blind_index, hand.big_blind_index) == (1, 2)
    assert hand.actor_index == 1
    hand.act(Call())
    hand.act(Check())
    assert hand.actor_index == 2


# -- bet sizes -----------------------------------------------------------------------------


def test_minimum_bet_is_the_big_blind() -> None:
    hand = start([100, 100], button=0)
    hand.act(Call())
    hand.act(Check())
    legal = hand.legal_actions()
    assert legal is not None and (legal.min_raise_to, legal.max_raise_to) == (2, 98)
    with pytest.raises(IllegalActionError) as info:
        hand.act(RaiseTo(1))
    assert info.value.code == "raise_below_minimum"
    assert str(info.value) == "raise to 1 below minimum 2 (seat 1, FLOP)"


def test_minimum_raise_is_the_size_of_the_last_full_raise() -> None:
    hand = start([1000] * 3, button=0)
    hand.act(RaiseTo(10))  # seat 0: a raise of 8
    legal = hand.legal_actions()
    assert legal is not None and legal.min_raise_to == 18
    hand.act(RaiseTo(40))  # seat 1: a raise of 30
    legal = hand.legal_actions()
    assert legal is not None and legal.min_raise_to == 70


def test_short_all_in_does_not_reopen_betting_wsop_rule_96() -> None:
    hand = start([1000, 1000, 150], button=0)
    # Pre-flop: seat 0 calls; flop: 1 bets 100, 2 all-in to 148 (short), 0 calls.
    hand.act(Call())
    hand.act(Call())
    hand.act(Check())
    assert hand.phase is Phase.FLOP
    hand.act(RaiseTo(100))  # seat 1 bets
    hand.act(AllIn())  # seat 2: 148, a raise of 48 < 100
    assert not actions_of(hand)[-1].is_full_raise
    hand.act(Call())  # seat 0 had not acted: could raise, calls
    assert hand.actor_index == 1
    legal = hand.legal_actions()
    assert legal is not None and legal.call_amount == 48 and not legal.can_raise
    with pytest.raises(IllegalActionError) as info:
        hand.act(RaiseTo(300))
    assert info.value.code == "raising_not_allowed"


def test_short_all_in_lets_players_who_have_not_acted_raise() -> None:
    hand = start([1000, 1000, 1000, 150], button=0)
    hand.act(Call())  # 3
    hand.act(Call())  # 0
    hand.act(Call())  # 1
    hand.act(Check())  # 2
    hand.act(RaiseTo(100))  # seat 1 bets
    hand.act(Call())  # seat 2
    hand.act(AllIn())  # seat 3: 148, short
    legal = hand.legal_actions()
    assert legal is not None and legal.seat_index == 0 and legal.can_raise
    assert legal.min_raise_to == 248


def test_consecutive_short_all_ins_that_add_up_to_a_full_raise_reopen_wsop_rule_96a() -> None:
    hand = start([1000, 1000, 160, 230], button=0)
    hand.act(Call())  # 3
    hand.act(Call())  # 0
    hand.act(Call())  # 1
    hand.act(Check())  # 2
    hand.act(RaiseTo(100))  # seat 1 bets 100
    hand.act(AllIn())  # seat 2: to 158 (+58, short)
    hand.act(AllIn())  # seat 3: to 228 (+70, short; 128 over seat 1's bet)
    hand.act(Call())  # seat 0
    legal = hand.legal_actions()
    assert legal is not None and legal.seat_index == 1
    assert legal.can_raise and legal.min_raise_to == 328


def test_raise_to_all_in_total_below_minimum_is_accepted_as_all_in() -> None:
    hand = start([1000, 1000, 30], button=0)
    hand.act(RaiseTo(20))
    hand.act(Fold())
    legal = hand.legal_actions()
    # The big blind's all-in total is 30, short of the minimum raise to 38.
    assert legal is not None and legal.min_raise_to == 30 and legal.max_raise_to == 30
    hand.act(RaiseTo(30))
    last = actions_of(hand)[-1]
    assert last.is_all_in and last.is_raise and last.total == 30 and not last.is_full_raise


def test_all_in_below_the_bet_is_a_call_for_less() -> None:
    hand = start([1000, 1000, 30], button=0)
    hand.act(RaiseTo(100))
    hand.act(Fold())
    hand.act(AllIn())
    last = actions_of(hand)[-1]
    assert last.is_call and last.is_all_in and last.amount == 28


def test_call_when_nothing_is_to_be_called_is_a_check() -> None:
    hand = start([100, 100], button=0)
    hand.act(Call())
    hand.act(Call())
    assert actions_of(hand)[-1].kind == "CHECK"


# -- rejected actions change nothing -------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "code", "message"),
    [
        (RaiseTo(500), "amount_above_stack", "raise to 500 above stack: all-in is 100 (seat 2"),
        (RaiseTo(3), "raise_below_minimum", "raise to 3 below minimum 4 (seat 2, PRE_FLOP)"),
        (Check(), "cannot_check", "cannot check: 2 to call (seat 2, PRE_FLOP)"),
        (RaiseTo(True), "bad_amount", "raise amount True is not a whole number"),
    ],
)
def test_illegal_action_is_rejected_with_a_stable_code_and_changes_nothing(
    action: RaiseTo | Check,
    code: str,
    message: str,
) -> None:
    hand = start([100, 100, 100], button=2)
    before = (hand.events, hand.stacks, hand.legal_actions(), hand.phase)
    with pytest.raises(IllegalActionError) as info:
        hand.act(action)
    assert info.value.code == code
    assert str(info.value).startswith(message)
    assert (hand.events, hand.stacks, hand.legal_actions(), hand.phase) == before


def test_action_out_of_turn_is_rejected_not_your_turn() -> None:
    hand = start([100, 100, 100], button=2)
    with pytest.raises(IllegalActionError) as info:
        hand.act(Call(), seat_index=1)
    assert info.value.code == "not_your_turn"
    assert "seat 1 acted but seat 2 is to act" in str(info.value)
    hand.act(Call(), seat_index=2)


def test_action_after_the_hand_ended_is_rejected_hand_is_over() -> None:
    hand = start([100, 100], button=0)
    hand.act(Fold())
    assert hand.is_over
    with pytest.raises(IllegalActionError) as info:
        hand.act(Check())
    assert info.value.code == "hand_is_over"
    assert hand.legal_actions() is None


# -- dealing -------------------------------------------------------------------------------


def test_a_card_is_burned_before_the_flop_the_turn_and_the_river() -> None:
    hand = start([100, 100], button=0)
    for _ in range(4):
        while hand.phase is not Phase.HAND_COMPLETE and hand.actor_index is not None:
            hand.act(Call())
    order = hand.deck_order
    # Hole cards 0..3, burn 4, flop 5..7, burn 8, turn 9, burn 10, river 11.
    assert hand.board == (order[5], order[6], order[7], order[9], order[11])


def test_remaining_board_is_dealt_at_once_when_no_more_betting_is_possible() -> None:
    hand = start([100, 100, 100], button=0)
    hand.act(AllIn())
    hand.act(Call())
    hand.act(Call())
    assert hand.is_over
    streets = [e for e in hand.events if isinstance(e, StreetDealt)]
    assert [s.phase for s in streets] == [Phase.FLOP, Phase.TURN, Phase.RIVER]
    assert len(hand.board) == 5


def test_hole_cards_are_dealt_one_at_a_time_starting_left_of_the_button() -> None:
    hand = start([100, 100, 100], button=0)
    order = hand.deck_order
    assert hand.hole_cards(1) == (order[0], order[3])
    assert hand.hole_cards(0) == (order[2], order[5])
    dealt = [e.seat_index for e in hand.events if isinstance(e, HoleCardsDealt)]
    assert dealt == [1, 2, 0]


# -- pots and showdown ---------------------------------------------------------------------


def test_uncalled_bet_is_returned() -> None:
    hand = start([100, 100, 100], button=0)
    hand.act(RaiseTo(50))
    hand.act(Fold())
    hand.act(Fold())
    returned = [e for e in hand.events if isinstance(e, UncalledBetReturned)]
    assert [(r.seat_index, r.amount) for r in returned] == [(0, 48)]
    assert hand.result is not None and hand.result.final_stacks == {0: 103, 1: 99, 2: 98}


def test_winner_by_fold_shows_nothing() -> None:
    hand = start([100, 100], button=0)
    hand.act(Fold())
    assert hand.result is not None
    assert hand.result.ended_reason == "FOLD"
    assert hand.result.shown_cards == {}
    assert not any(isinstance(e, HandShown | HandMucked) for e in hand.events)


def test_side_pots_are_won_only_by_players_who_contributed() -> None:
    # The classic side pot example: A all-in for 100, B and C bet 200.
    holes = {0: "AsAh", 1: "KsKh", 2: "QsQh"}
    hand = start([100, 500, 500], button=2, holes=holes, board="2c7d9hTcJd")
    hand.act(Call())  # seat 2, the button
    hand.act(AllIn())  # seat 0, small blind: all-in for 100
    hand.act(Call())  # seat 1
    hand.act(Call())  # seat 2
    hand.act(RaiseTo(100))  # flop: seat 1 bets 100 more, 200 in all
    hand.act(Call())  # seat 2
    for _ in range(4):
        hand.act(Check())
    result = hand.result
    assert result is not None and result.ended_reason == "SHOWDOWN"
    main, side = result.awards
    assert (main.amount, main.eligible_seat_indexes, main.shares) == (300, (0, 1, 2), ((0, 300),))
    assert (side.amount, side.eligible_seat_indexes, side.shares) == (200, (1, 2), ((1, 200),))
    assert result.final_stacks == {0: 300, 1: 500, 2: 300}


def test_odd_chip_goes_to_first_winner_clockwise_from_button() -> None:
    # Four players, three tie (the board plays); the big blind folds its 2 chips on the flop,
    # so 8 chips are split three ways: 3, 3 and 2, odd chips from the left of the button.
    holes = {0: "2c3d", 1: "2d3c", 2: "2h3h", 3: "4h5c"}
    hand = start([100] * 4, button=1, holes=holes, board="AsKsQsJs9h")
    for _ in range(3):
        hand.act(Call())  # seats 0, 1 and the small blind 2
    hand.act(Check())  # big blind 3
    hand.act(Check())  # flop: seat 2
    hand.act(Fold())  # seat 3
    for _ in range(8):
        hand.act(Check())
    result = hand.result
    assert result is not None
    (award,) = result.awards
    assert award.amount == 8
    assert award.shares == ((2, 3), (0, 3), (1, 2))


def test_odd_chip_of_split_pot_goes_left_of_the_button_pot_by_pot() -> None:
    # Everyone's best hand is the board. Seat 3 is all-in for 11 pre-flop; seat 2 puts 16
    # in and folds on the turn. Main pot 44 (seats 0, 1, 3), side pot 21 (seats 0, 1).
    holes = {0: "2c3d", 1: "2d3c", 2: "4h5c", 3: "2h3h"}
    hand = start([100, 100, 100, 11], button=0, holes=holes, board="AsKsQsJs9h")
    hand.act(AllIn())  # seat 3
    for _ in range(3):
        hand.act(Call())  # seats 0, 1, 2
    hand.act(RaiseTo(5))  # flop: seat 1
    hand.act(Call())  # seat 2
    hand.act(Call())  # seat 0
    hand.act(RaiseTo(3))  # turn: seat 1
    hand.act(Fold())  # seat 2
    hand.act(Call())  # seat 0
    hand.act(Check())  # river
    hand.act(Check())
    result = hand.result
    assert result is not None
    main, side = result.awards
    assert (main.amount, main.eligible_seat_indexes) == (44, (0, 1, 3))
    # 44 = 3 x 14 + 2: one odd chip each to seats 1 and 3, the first winners left of button.
    assert main.shares == ((1, 15), (3, 15), (0, 14))
    assert (side.amount, side.eligible_seat_indexes) == (21, (0, 1))
    assert side.shares == ((1, 11), (0, 10))


def test_split_pot_divides_evenly_between_tied_hands() -> None:
    holes = {0: "2c3d", 1: "2d3c"}
    hand = start([100, 100], button=0, holes=holes, board="AsKsQsJs9h")
    hand.act(Call())
    for _ in range(7):
        hand.act(Check())
    assert hand.result is not None and hand.result.final_stacks == {0: 100, 1: 100}


def test_last_aggressor_of_final_round_shows_first() -> None:
    holes = {0: "AsAh", 1: "KsKh", 2: "QsQh"}
    hand = start([100, 100, 100], button=0, holes=holes, board="2c7d9hTcJd")
    for _ in range(3):
        hand.act(Call())
    for _ in range(6):
        hand.act(Check())
    hand.act(Check())  # river: seat 1
    hand.act(RaiseTo(10))  # seat 2 bets
    hand.act(Call())  # seat 0
    hand.act(Call())  # seat 1
    shows = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    assert [(type(e).__name__, e.seat_index) for e in shows] == [
        ("HandShown", 2),  # the river bettor shows first
        ("HandShown", 0),  # aces beat queens: shown
        ("HandMucked", 1),  # kings are beaten by aces already shown: mucked
    ]
    assert hand.result is not None and set(hand.result.shown_cards) == {0, 2}


def test_without_a_bet_on_the_river_first_player_left_of_button_shows_first() -> None:
    holes = {0: "AsAh", 1: "KsKh", 2: "QsQh"}
    hand = start([100, 100, 100], button=0, holes=holes, board="2c7d9hTcJd")
    for _ in range(3):
        hand.act(Call())
    for _ in range(9):
        hand.act(Check())
    shows = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    assert [(type(e).__name__, e.seat_index) for e in shows] == [
        ("HandShown", 1),
        ("HandMucked", 2),
        ("HandShown", 0),
    ]


def test_all_in_players_hand_is_always_shown_even_when_beaten() -> None:
    holes = {0: "AsAh", 1: "KsKh", 2: "2s3h"}
    hand = start([100, 100, 20], button=0, holes=holes, board="2c7d9hTcJd")
    hand.act(Call())  # 0
    hand.act(Call())  # 1
    hand.act(AllIn())  # 2 big blind all-in for 20
    hand.act(Call())
    hand.act(Call())
    for _ in range(6):
        hand.act(Check())
    shown = [e.seat_index for e in hand.events if isinstance(e, HandShown)]
    assert 2 in shown and 0 in shown


# -- events, views, invariants -------------------------------------------------------------


def test_every_event_has_a_plain_json_dict() -> None:
    hand = start([100, 100, 20], button=0)
    hand.act(AllIn())
    hand.act(Call())
    hand.act(Call())
    for event in hand.events:
        data = event.to_dict()
        assert json.loads(json.dumps(data)) == data
        assert data["type"] == event.type


def test_view_never_shows_other_seats_hole_cards_until_shown() -> None:
    hand = start([100, 100, 100], button=0)
    view = hand.view(1)
    assert view.hole_cards == hand.hole_cards(1)
    assert view.legal_actions is None  # seat 0 is to act
    text = json.dumps(list(view.history))
    for seat in (0, 2):
        for card in hand.hole_cards(seat):
            assert str(card) not in text
    assert all(s.shown_cards is None for s in view.seats)
    assert hand.view(0).legal_actions == hand.legal_actions()
    spectator = hand.view(None)
    assert spectator.hole_cards == ()


def test_private_event_is_redacted_for_other_viewers() -> None:
    hand = start([100, 100], button=0)
    dealt = next(e for e in hand.events if isinstance(e, HoleCardsDealt))
    assert public_dict(dealt, dealt.seat_index)["cards"] == [str(c) for c in dealt.cards]
    assert public_dict(dealt, None)["cards"] is None
    assert public_dict(dealt, None)["cards_count"] == 2


def test_view_shows_cards_shown_at_showdown() -> None:
    hand = start([100, 100], button=0)
    hand.act(AllIn())
    hand.act(Call())
    view = hand.view(None)
    shown = {s.seat_index: s.shown_cards for s in view.seats}
    assert shown[0] == hand.hole_cards(0) and shown[1] == hand.hole_cards(1)
    assert view.is_over and view.phase == "HAND_COMPLETE"


def test_invariant_failure_voids_the_hand_and_refunds_every_contribution() -> None:
    hand = start([100, 100, 100], button=0)
    hand.act(RaiseTo(10))
    hand._stacks[1] += 7  # inject a corruption: chips appear from nowhere
    events = hand.act(Call())
    assert [e.type for e in events][-2:] == ["hand_voided", "hand_ended"]
    assert hand.result is not None and hand.result.ended_reason == "VOID"
    assert hand.result.final_stacks == {0: 100, 1: 100, 2: 100}
    voided = events[-2].to_dict()
    assert "chips not conserved" in voided["reason"]
    assert voided["refunds"] == [
        {"seat_index": 0, "amount": 10},
        {"seat_index": 1, "amount": 10},
        {"seat_index": 2, "amount": 2},
    ]
