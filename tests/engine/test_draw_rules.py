"""Scenario tests of five-card draw through ``Hand``, each named after the rule it checks."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest

from engine.actions import AllIn, Call, Check, Discard, Fold, RaiseTo
from engine.cards import Card, parse_cards
from engine.config import BettingStructure, DrawLimit, GameConfig, Variant
from engine.deck import Deck
from engine.draw import DrawRoundState
from engine.errors import ILLEGAL_ACTION_CODES, IllegalActionError, InvariantError
from engine.events import (
    ActionTaken,
    AntePosted,
    BettingRoundComplete,
    BlindPosted,
    CardsDrawn,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    StubReshuffled,
    public_dict,
)
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history, history_from_json, history_to_json, replay_history
from engine.phases import Phase, PlayerStatus
from engine.phh import PhhError, hand_to_phh

DRAW = GameConfig(small_blind=1, big_blind=2, variant=Variant.FIVE_CARD_DRAW)
ANTES_ONLY = GameConfig(small_blind=0, big_blind=0, ante=1, variant=Variant.FIVE_CARD_DRAW)


def dealing_order(count: int, button: int) -> list[int]:
    """Seats in dealing order: left of the button first (heads-up: the big blind)."""
    return [(button + k) % count for k in range(1, count + 1)]


def stacked(count: int, button: int, holes: dict[int, str], stub: str = "") -> Deck:
    """A deck dealing ``holes`` (seat -> five cards) one at a time from left of the button,
    then ``stub`` (the burn card first), then the unused cards in index order."""
    parsed = {seat: parse_cards(text) for seat, text in holes.items()}
    order = dealing_order(count, button)
    top = [parsed[seat][k] for k in range(5) for seat in order]
    top += parse_cards(stub)
    return Deck.stacked(top)


def start(
    stacks: Sequence[int],
    *,
    button: int = 0,
    config: GameConfig = DRAW,
    holes: dict[int, str] | None = None,
    stub: str = "",
) -> Hand:
    seats = [SeatSetup(i, f"p{i}", stack) for i, stack in enumerate(stacks)]
    deck = Deck.stacked([]) if holes is None else stacked(len(stacks), button, holes, stub)
    return Hand.start(config, seats, button_index=button, deck=deck)


def check_around(hand: Hand) -> None:
    """Call or check until the betting round ends."""
    phase = hand.phase
    while hand.phase is phase and not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if legal.can_check else Call())


def stand_pat_around(hand: Hand) -> None:
    while hand.phase is Phase.DRAW:
        hand.act(Discard(()))


def draws_of(hand: Hand) -> list[CardsDrawn]:
    return [e for e in hand.events if isinstance(e, CardsDrawn)]


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


# -- dealing, antes and blinds, order of action ------------------------------------------------


def test_five_cards_are_dealt_one_at_a_time_starting_left_of_the_button() -> None:
    deck = Deck.stacked([])
    hand = Hand.start(
        DRAW, [SeatSetup(i, f"p{i}", 100) for i in range(3)], button_index=0, deck=deck
    )
    order = deck.order
    dealt = {e.seat_index: e.cards for e in hand.events if isinstance(e, HoleCardsDealt)}
    assert dealt[1] == tuple(order[0:15:3])
    assert dealt[2] == tuple(order[1:15:3])
    assert dealt[0] == tuple(order[2:15:3])


def test_pre_draw_betting_with_blinds_starts_left_of_the_big_blind() -> None:
    hand = start([100] * 4, button=0)
    assert hand.phase is Phase.PRE_DRAW_BET
    assert (hand.small_blind_index, hand.big_blind_index, hand.actor_index) == (1, 2, 3)


def test_antes_only_action_starts_left_of_button() -> None:
    hand = start([100] * 4, button=2, config=ANTES_ONLY)
    antes = [e for e in hand.events if isinstance(e, AntePosted)]
    assert [a.seat_index for a in antes] == [3, 0, 1, 2]
    assert not [e for e in hand.events if isinstance(e, BlindPosted)]
    # No blinds, so no blind seats: only the button has a position name.
    assert (hand.small_blind_index, hand.big_blind_index) == (None, None)
    assert hand.positions == {2: "button"}
    assert hand.view(0).big_blind_index is None
    assert hand.pot_total == 4
    assert hand.actor_index == 3
    legal = hand.legal_actions()
    # Nothing to call; the minimum opening bet is config.minimum_bet (the ante here).
    assert legal is not None and legal.can_check and legal.min_raise_to == 1


def test_antes_only_heads_up_the_player_left_of_the_button_acts_first() -> None:
    hand = start([100, 100], button=1, config=ANTES_ONLY)
    assert hand.actor_index == 0
    hand.act(Check())
    assert hand.actor_index == 1
    hand.act(Check())
    assert hand.phase is Phase.DRAW and hand.actor_index == 0


def test_antes_only_round_of_checks_goes_to_the_draw() -> None:
    hand = start([100] * 3, button=0, config=ANTES_ONLY)
    for seat in (1, 2, 0):
        assert hand.actor_index == seat
        hand.act(Check())
    assert hand.phase is Phase.DRAW


def test_antes_and_blinds_are_both_posted() -> None:
    config = GameConfig(small_blind=1, big_blind=2, ante=1, variant=Variant.FIVE_CARD_DRAW)
    hand = start([100] * 3, button=0, config=config)
    assert len([e for e in hand.events if isinstance(e, AntePosted)]) == 3
    assert len([e for e in hand.events if isinstance(e, BlindPosted)]) == 2
    assert hand.pot_total == 6 and hand.actor_index == 0


def test_fixed_limit_antes_only_bets_the_small_bet_before_the_draw_and_big_after() -> None:
    config = GameConfig(
        small_blind=0,
        big_blind=0,
        ante=5,
        variant=Variant.FIVE_CARD_DRAW,
        structure=BettingStructure.FIXED_LIMIT,
    )
    hand = start([500] * 3, button=0, config=config)
    legal = hand.legal_actions()
    assert legal is not None and legal.min_raise_to == legal.max_raise_to == 5
    check_around(hand)
    stand_pat_around(hand)
    legal = hand.legal_actions()
    assert hand.phase is Phase.POST_DRAW_BET
    assert legal is not None and legal.min_raise_to == legal.max_raise_to == 10


# -- the draw -------------------------------------------------------------------------------------


def test_draw_order_starts_left_of_button() -> None:
    hand = start([100] * 4, button=1)
    check_around(hand)
    assert hand.phase is Phase.DRAW
    order = []
    while hand.phase is Phase.DRAW:
        order.append(hand.actor_index)
        hand.act(Discard(()))
    assert order == [2, 3, 0, 1]


def test_heads_up_the_big_blind_draws_first_and_the_button_last() -> None:
    hand = start([100, 100], button=0)
    check_around(hand)
    assert hand.actor_index == 1
    hand.act(Discard(()))
    assert hand.actor_index == 0


def test_folded_players_do_not_draw_and_all_in_players_do() -> None:
    hand = start([100, 100, 10, 100], button=0)
    hand.act(Fold())  # seat 3
    hand.act(Call())  # seat 0
    hand.act(Call())  # seat 1 (small blind)
    hand.act(AllIn())  # seat 2 (big blind) raises all-in to 10
    hand.act(Call())  # seat 0
    hand.act(Call())  # seat 1
    assert hand.phase is Phase.DRAW
    order = []
    while hand.phase is Phase.DRAW:
        order.append(hand.actor_index)
        hand.act(Discard(()))
    assert order == [1, 2, 0]


def test_draw_menu_offers_only_a_discard_of_up_to_five_cards() -> None:
    hand = start([100] * 3)
    check_around(hand)
    legal = hand.legal_actions()
    assert legal is not None and legal.can_draw and legal.max_discard_count == 5
    assert not (legal.can_fold or legal.can_check or legal.can_call or legal.can_raise)
    assert hand.view(legal.seat_index).legal_actions == legal


def test_max_discard_count_option_limits_the_draw() -> None:
    config = GameConfig(variant=Variant.FIVE_CARD_DRAW, max_discard_count=2)
    hand = start([100] * 3, config=config)
    check_around(hand)
    legal = hand.legal_actions()
    assert legal is not None and legal.max_discard_count == 2
    with pytest.raises(IllegalActionError) as info:
        hand.act(Discard(hand.hole_cards(1)[:3]))
    assert info.value.code == "too_many_discards"


def test_draw_burns_one_card_before_first_replacement() -> None:
    holes = {1: "2c 3d 4h 5s 7c", 2: "2d 3h 4s 5c 7d", 0: "2h 3s 4c 5d 7h"}
    hand = start([100] * 3, holes=holes, stub="Kc Ac Ad Ah 9s 9h")
    check_around(hand)
    hand.act(Discard(()))  # seat 1 stands pat: nothing dealt, nothing burned yet
    hand.act(Discard(cards("2d 3h")))  # seat 2: Kc is burned, then Ac Ad
    hand.act(Discard(cards("7h")))  # seat 0: no second burn
    drawn = {e.seat_index: e.drawn for e in draws_of(hand)}
    assert drawn == {1: (), 2: cards("Ac Ad"), 0: cards("Ah")}
    assert hand.hole_cards(2) == cards("4s 5c 7d Ac Ad")
    assert Card.parse("Kc") not in {c for s in (0, 1, 2) for c in hand.hole_cards(s)}


def test_nobody_drawing_deals_and_burns_nothing() -> None:
    hand = start([100] * 3)
    check_around(hand)
    stand_pat_around(hand)
    assert hand.phase is Phase.POST_DRAW_BET
    assert [e.discard_count for e in draws_of(hand)] == [0, 0, 0]


def test_stub_reshuffle_excludes_current_players_discards_roberts_rules() -> None:
    # Eight players take 40 cards; 12 are left. Each draws five: the stub runs out
    # several times and the muck (burn card, earlier discards) is reshuffled each time.
    hand = Hand.start(
        DRAW,
        [SeatSetup(i, f"p{i}", 100) for i in range(8)],
        button_index=0,
        rng=random.Random(8),
    )
    check_around(hand)
    while hand.phase is Phase.DRAW:
        seat = hand.actor_index
        assert seat is not None
        hand.act(Discard(hand.hole_cards(seat)))
    draws = draws_of(hand)
    assert [d.discard_count for d in draws] == [5] * 8
    for draw in draws:
        # Nobody gets back a card they threw away in this draw.
        assert not set(draw.drawn) & set(draw.discarded)
        assert hand.hole_cards(draw.seat_index) == draw.drawn
    final = [c for s in range(8) for c in hand.hole_cards(s)]
    assert len(set(final)) == 40  # no card is in two hands
    reshuffles = [e for e in hand.events if isinstance(e, StubReshuffled)]
    assert len(reshuffles) >= 2
    # Each reshuffle comes right before the draw it completes and holds only cards that
    # were already out of play: the burn card and the discards of earlier players.
    events = list(hand.events)
    for reshuffle in reshuffles:
        index = events.index(reshuffle)
        drawer = next(e for e in events[index:] if isinstance(e, CardsDrawn))
        earlier = [e for e in events[:index] if isinstance(e, CardsDrawn)]
        pool = {c for e in earlier for c in e.discarded} | {hand.deck_order[40]}
        assert set(drawer.drawn) - set(hand.deck_order[41:]) <= pool


def test_stub_reshuffle_is_the_same_when_the_hand_is_replayed() -> None:
    def run() -> Hand:
        hand = Hand.start(
            DRAW,
            [SeatSetup(i, f"p{i}", 100) for i in range(8)],
            button_index=3,
            deck=Deck.shuffled(random.Random(21)),
        )
        check_around(hand)
        while hand.phase is Phase.DRAW:
            seat = hand.actor_index
            assert seat is not None
            hand.act(Discard(hand.hole_cards(seat)[:4]))
        return hand

    first, second = run(), run()
    assert any(isinstance(e, StubReshuffled) for e in first.events)
    assert first.events == second.events
    assert len(first.deck_order) == 52 and len(set(first.deck_order)) == 52


def test_ten_players_draw_is_capped_at_the_cards_that_can_be_dealt() -> None:
    # Ten hands take 50 cards: two are left (and every discard joins the muck in turn).
    hand = start([100] * 10)
    check_around(hand)
    for _ in range(10):
        legal = hand.legal_actions()
        assert legal is not None and legal.max_discard_count == 2
        seat = legal.seat_index
        hand.act(Discard(hand.hole_cards(seat)[:2]))
    assert hand.phase is Phase.POST_DRAW_BET
    final = [c for s in range(10) for c in hand.hole_cards(s)]
    assert len(set(final)) == 50


def test_house_rule_three_or_four_with_ace() -> None:
    config = GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    holes = {1: "As 3d 4h 5s 7c", 2: "Kd 3h 4s 5c 7d", 0: "Ah 3s 4c 5d 7h"}
    hand = start([100] * 3, config=config, holes=holes)
    check_around(hand)
    legal = hand.legal_actions()
    assert legal is not None and legal.max_discard_count == 4  # seat 1 holds an ace
    hand.act(Discard(cards("3d 4h 5s 7c")))  # keeps the ace: four cards
    legal = hand.legal_actions()
    assert legal is not None and legal.max_discard_count == 3  # seat 2: no ace
    with pytest.raises(IllegalActionError) as info:
        hand.act(Discard(cards("3h 4s 5c 7d")))
    assert info.value.code == "too_many_discards"
    hand.act(Discard(cards("3h 4s 5c")))
    with pytest.raises(IllegalActionError) as info:  # seat 0 has an ace but throws it
        hand.act(Discard(cards("Ah 3s 4c 5d")))
    assert info.value.code == "too_many_discards" and "not an ace" in str(info.value)
    hand.act(Discard(cards("3s 4c 5d 7h")))
    assert [d.discard_count for d in draws_of(hand)] == [4, 3, 4]


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Fold(), "not_a_bet"),
        (Check(), "not_a_bet"),
        (RaiseTo(10), "not_a_bet"),
        (Discard(cards("2c 2c")), "duplicate_discard"),
        (Discard(cards("Ah")), "card_not_in_hand"),
        (Discard(("2c",)), "bad_discard"),  # type: ignore[arg-type]
    ],
)
def test_bad_draw_is_rejected_with_a_stable_code_and_changes_nothing(
    action: Discard | Fold | Check | RaiseTo, code: str
) -> None:
    holes = {1: "2c 3d 4h 5s 7c", 2: "2d 3h 4s 5c 7d", 0: "2h 3s 4c 5d 7h"}
    hand = start([100] * 3, holes=holes)
    check_around(hand)
    before = (hand.events, hand.hole_cards(1), hand.legal_actions(), hand.seat_states())
    with pytest.raises(IllegalActionError) as info:
        hand.act(action)
    assert info.value.code == code and info.value.code in ILLEGAL_ACTION_CODES
    assert "(seat 1, DRAW)" in str(info.value)
    assert (hand.events, hand.hole_cards(1), hand.legal_actions(), hand.seat_states()) == before


def test_check_action_dry_runs_a_draw_without_changing_anything() -> None:
    hand = start([100] * 3)
    check_around(hand)
    before = (hand.events, hand.hole_cards(1), hand.legal_actions())
    hand.check_action(Discard(hand.hole_cards(1)[:2]), seat_index=1)
    outside = next(c for c in cards("Ah Ad") if c not in hand.hole_cards(1))
    with pytest.raises(IllegalActionError) as info:
        hand.check_action(Discard((outside,)))
    assert info.value.code == "card_not_in_hand"
    assert (hand.events, hand.hole_cards(1), hand.legal_actions()) == before


def test_discard_during_betting_is_rejected_not_a_draw() -> None:
    hand = start([100] * 3)
    with pytest.raises(IllegalActionError) as info:
        hand.act(Discard(()))
    assert info.value.code == "not_a_draw"


def test_invariant_failure_in_the_draw_voids_the_hand_and_refunds_everyone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hand = start([100] * 3)
    check_around(hand)

    def broken(self: DrawRoundState, position: int, discards: tuple[Card, ...]) -> None:
        raise InvariantError("deck_exhausted", "the stub and the muck are empty")

    monkeypatch.setattr(DrawRoundState, "apply", broken)
    events = hand.act(Discard(()))
    assert [e.type for e in events] == ["hand_voided", "hand_ended"]
    assert hand.result is not None and hand.result.ended_reason == "VOID"
    assert hand.stacks == {0: 100, 1: 100, 2: 100}


def test_draw_out_of_turn_is_rejected_not_your_turn() -> None:
    hand = start([100] * 3)
    check_around(hand)
    with pytest.raises(IllegalActionError) as info:
        hand.act(Discard(()), seat_index=2)
    assert info.value.code == "not_your_turn"


# -- what everyone may see ---------------------------------------------------------------------


def test_draw_count_is_public_and_cards_are_private() -> None:
    holes = {1: "2c 3d 4h 5s 7c", 2: "2d 3h 4s 5c 7d", 0: "2h 3s 4c 5d 7h"}
    hand = start([100] * 3, holes=holes)
    check_around(hand)
    hand.act(Discard(cards("2c 3d")))
    event = draws_of(hand)[0]
    mine = public_dict(event, 1)
    theirs = public_dict(event, 2)
    assert mine["discarded"] == ["2c", "3d"] and len(mine["drawn"]) == 2
    assert theirs["discard_count"] == 2 and theirs["discarded_count"] == 2
    assert theirs["discarded"] is None and theirs["drawn"] is None
    assert public_dict(event, None)["drawn"] is None
    for viewer in (0, 2, None):
        view = hand.view(viewer)
        seat_one = next(s for s in view.seats if s.seat_index == 1)
        assert seat_one.discard_count == 2
        text = json.dumps(view.history)
        assert all(str(card) not in text for card in (*event.discarded, *event.drawn))
    assert hand.view(1).hole_cards == hand.hole_cards(1)
    assert next(s for s in hand.view(0).seats if s.seat_index == 2).discard_count is None


def test_stub_reshuffle_is_public_without_its_cards() -> None:
    event = StubReshuffled(card_count=11)
    assert public_dict(event, 3) == {"type": "stub_reshuffled", "card_count": 11}


# -- after the draw ---------------------------------------------------------------------------


def test_post_draw_betting_starts_with_first_active_player_left_of_button() -> None:
    hand = start([100] * 4, button=0)
    hand.act(Call())  # seat 3
    hand.act(Call())  # seat 0
    hand.act(Fold())  # seat 1, the small blind, folds
    hand.act(Check())  # seat 2
    stand_pat_around(hand)
    assert hand.phase is Phase.POST_DRAW_BET
    assert hand.actor_index == 2  # left of the button, skipping the folded small blind


def test_draw_phases_follow_the_documented_transitions() -> None:
    hand = start([100] * 3)
    seen = [hand.phase]
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Discard(()) if legal.can_draw else Check() if legal.can_check else Call())
        if hand.phase is not seen[-1]:
            seen.append(hand.phase)
    assert seen == [Phase.PRE_DRAW_BET, Phase.DRAW, Phase.POST_DRAW_BET, Phase.HAND_COMPLETE]
    rounds = [e.phase for e in hand.events if isinstance(e, BettingRoundComplete)]
    assert rounds == [Phase.PRE_DRAW_BET, Phase.POST_DRAW_BET]
    assert hand.result is not None and hand.result.ended_reason == "SHOWDOWN"


def test_everyone_folding_before_the_draw_ends_the_hand_without_a_draw() -> None:
    hand = start([100] * 3)
    hand.act(Fold())
    hand.act(Fold())
    assert hand.is_over and not draws_of(hand)
    assert hand.stacks == {0: 100, 1: 99, 2: 101}


def test_all_in_before_the_draw_still_draws_then_goes_to_showdown() -> None:
    holes = {1: "2c 3d 4h 5s 7c", 0: "Ah Ad 4c 5d 9h"}
    hand = start([50, 50], button=0, holes=holes, stub="Kc As Ks")
    hand.act(AllIn())  # the button (small blind) moves in
    hand.act(Call())
    assert hand.phase is Phase.DRAW
    hand.act(Discard(cards("2c 3d")))  # seat 1: burn Kc, draws As Ks
    hand.act(Discard(()))
    assert hand.is_over
    assert hand.hole_cards(1) == cards("4h 5s 7c As Ks")
    assert hand.stacks == {0: 100, 1: 0}  # two aces beat ace-king high


def test_showdown_uses_the_hands_after_the_draw_and_mucks_beaten_hands() -> None:
    holes = {1: "2c 3d 4h 5s 9c", 2: "Kd Kh 4s 5c 7d", 0: "2h 3s 4c 8d 7h"}
    hand = start([100] * 3, holes=holes, stub="Jc Ac Ad")
    check_around(hand)
    hand.act(Discard(cards("2c 3d")))  # seat 1: burn Jc, draws Ac Ad: a pair of aces
    hand.act(Discard(()))
    hand.act(Discard(()))
    hand.act(RaiseTo(2))  # seat 1 bets: the last aggressor shows first
    hand.act(Call())
    hand.act(Call())
    shown = [e.seat_index for e in hand.events if isinstance(e, HandShown)]
    mucked = [e.seat_index for e in hand.events if isinstance(e, HandMucked)]
    assert shown == [1] and sorted(mucked) == [0, 2]
    assert hand.shown_cards[1] == cards("4h 5s 9c Ac Ad")
    assert hand.stacks == {0: 96, 1: 108, 2: 96}


def test_seat_state_reports_discard_counts_after_the_draw() -> None:
    hand = start([100] * 3)
    check_around(hand)
    hand.act(Discard(hand.hole_cards(1)[:3]))
    counts = {s.seat_index: s.discard_count for s in hand.seat_states()}
    assert counts == {0: None, 1: 3, 2: None}
    assert all(s.status is PlayerStatus.ACTIVE for s in hand.seat_states())


# -- histories -------------------------------------------------------------------------------


def test_draw_hand_replays_from_its_history_identically() -> None:
    hand = Hand.start(
        DRAW,
        [SeatSetup(i, f"p{i}", 100) for i in range(8)],
        button_index=5,
        rng=random.Random(99),
    )
    check_around(hand)
    while hand.phase is Phase.DRAW:
        seat = hand.actor_index
        assert seat is not None
        hand.act(Discard(hand.hole_cards(seat)[:5]))
    check_around(hand)
    assert hand.is_over and any(isinstance(e, StubReshuffled) for e in hand.events)
    text = history_to_json(hand_to_history(hand, seed="99"))
    doc = history_from_json(text)
    actions = doc["actions"]
    assert [a["action"] for a in actions].count("DISCARD") == 8
    replayed = replay_history(doc)
    assert replayed.events == hand.events
    assert history_to_json(hand_to_history(replayed, seed="99")) == text


def test_phh_export_of_a_draw_hand_is_refused() -> None:
    hand = start([100] * 3)
    hand.act(Fold())
    hand.act(Fold())
    with pytest.raises(PhhError) as info:
        hand_to_phh(hand)
    assert info.value.code == "unsupported_variant"


def test_draw_events_have_plain_json_dicts() -> None:
    hand = start([100] * 8)
    check_around(hand)
    while hand.phase is Phase.DRAW:
        seat = hand.actor_index
        assert seat is not None
        hand.act(Discard(hand.hole_cards(seat)))
    for event in hand.events:
        data = event.to_dict()
        assert json.loads(json.dumps(data)) == data


def test_fold_to_the_last_player_after_the_draw_shows_nothing() -> None:
    hand = start([100] * 3)
    check_around(hand)
    stand_pat_around(hand)
    hand.act(RaiseTo(10))
    hand.act(Fold())
    hand.act(Fold())
    assert hand.result is not None and hand.result.ended_reason == "FOLD"
    assert not [e for e in hand.events if isinstance(e, HandShown)]
    assert [e.kind for e in hand.events if isinstance(e, ActionTaken)][-1] == "FOLD"
