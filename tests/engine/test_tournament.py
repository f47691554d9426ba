"""The freezeout: plays until one player has every chip, with finishing places."""

from __future__ import annotations

import random

import pytest

from engine.actions import AllIn, Call, Check, Fold
from engine.config import DrawLimit, GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.schedule import BlindSchedule
from engine.table import Elimination, TableError, hand_rng
from engine.tournament import (
    Freezeout,
    Standing,
    TournamentError,
    place_eliminations,
)
from tests.engine.policies import random_policy

PLAYERS = ["ann", "bob", "cy", "dee", "eve"]


def _freezeout(**kwargs: object) -> Freezeout:
    options: dict[str, object] = {"starting_stack": 100, "seed": 7}
    options.update(kwargs)
    return Freezeout(GameConfig(), PLAYERS, **options)  # type: ignore[arg-type]


def _shove(hand: Hand) -> None:
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(AllIn() if legal.can_raise else Call())


def test_freezeout_plays_until_one_player_has_all_the_chips() -> None:
    match = _freezeout(schedule=BlindSchedule.doubling(1, 2, every_hands=10))
    standings = match.play(random_policy(random.Random(1)))
    assert match.is_over
    assert match.winner == standings[0].player_id
    assert standings[0].place == 1 and standings[0].chips == 500
    assert standings[0].busted_hand_number is None
    assert sorted(s.player_id for s in standings) == sorted(PLAYERS)
    assert all(s.chips == 0 and s.busted_hand_number is not None for s in standings[1:])
    places = [s.place for s in standings]
    assert places == sorted(places) and places[0] == 1
    # Busted later means placed higher.
    busted = [s.busted_hand_number for s in standings[1:]]
    assert busted == sorted(busted, reverse=True)  # type: ignore[type-var]
    assert match.table.eliminations and len(match.table.eliminations) == 4


def test_player_busted_is_eliminated_and_placed() -> None:
    match = _freezeout(starting_stack={"ann": 10, "bob": 100, "cy": 100, "dee": 100, "eve": 100})
    placed: list[Standing] = []
    while not placed:
        hand = match.next_hand()
        _shove(hand)
        placed = list(match.finish_hand(hand))
    assert match.table.seats  # the freezeout goes on
    for standing in placed:
        assert standing.player_id not in match.table.player_ids
        assert standing.chips == 0 and standing.busted_hand_number == hand.hand_number
    assert placed[-1].place == len(PLAYERS)
    assert [s.player_id for s in match.standings()[-len(placed) :]] == [s.player_id for s in placed]


def test_players_busting_in_one_hand_are_placed_by_starting_stack() -> None:
    busted = [
        Elimination("short", 4, 12, 30),
        Elimination("big", 2, 12, 90),
        Elimination("mid", 0, 12, 60),
    ]
    standings = place_eliminations(busted, players_left=2)
    assert [(s.player_id, s.place, s.is_shared) for s in standings] == [
        ("big", 3, False),
        ("mid", 4, False),
        ("short", 5, False),
    ]
    assert all(s.busted_hand_number == 12 for s in standings)


def test_equal_starting_stacks_share_the_better_place_listed_by_seat() -> None:
    busted = [Elimination("b", 5, 3, 40), Elimination("a", 1, 3, 40), Elimination("c", 2, 3, 70)]
    standings = place_eliminations(busted, players_left=1)
    assert [(s.player_id, s.place, s.is_shared) for s in standings] == [
        ("c", 2, False),
        ("a", 3, True),
        ("b", 3, True),
    ]
    assert standings[1].to_dict() == {
        "place": 3,
        "player_id": "a",
        "chips": 0,
        "busted_hand_number": 3,
        "is_shared": True,
    }


def test_step_wise_api_gives_the_same_result_as_play() -> None:
    first = _freezeout(seed="same")
    expected = first.play(random_policy(random.Random(5)))
    second = _freezeout(seed="same")
    policy = random_policy(random.Random(5))
    hands = 0
    while not second.is_over:
        hand = second.next_hand()
        assert not second.is_over  # a hand in progress keeps the freezeout going
        assert second.winner is None
        while not hand.is_over:
            hand.act(policy(hand))
        second.finish_hand(hand)
        hands += 1
    assert second.standings() == expected
    assert hands == first.table.hands_played == second.table.hands_played


def test_every_hand_is_dealt_from_the_match_seed_and_hand_number() -> None:
    match = _freezeout(seed=99)
    for _ in range(3):
        hand = match.next_hand()
        expected = Deck.shuffled(hand_rng(99, hand.hand_number)).order
        assert hand.deck_order == expected
        assert match.hand_seed(hand.hand_number) == f"99:{hand.hand_number}"
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal is not None
            hand.act(Check() if legal.can_check else Fold())
        match.finish_hand(hand)
    assert match.seed == 99 and match.player_ids == tuple(PLAYERS)


def test_blinds_rise_on_schedule_during_a_freezeout() -> None:
    match = _freezeout(starting_stack=10_000, schedule=BlindSchedule.doubling(5, 10, every_hands=2))
    big_blinds = []
    for _ in range(6):
        hand = match.next_hand()
        big_blinds.append(hand.config.big_blind)
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal is not None
            hand.act(Check() if legal.can_check else Fold())
        match.finish_hand(hand)
    assert big_blinds == [10, 10, 20, 20, 40, 40]


def test_timed_freezeout_reads_the_injected_clock() -> None:
    now = [0.0]
    match = _freezeout(
        schedule=BlindSchedule.doubling(1, 2, every_seconds=600), clock=lambda: now[0]
    )
    blinds = []
    for minutes in (0, 5, 11, 25):
        now[0] = minutes * 60.0
        hand = match.next_hand()
        blinds.append(hand.config.big_blind)
        while not hand.is_over:
            legal = hand.legal_actions()
            assert legal is not None
            hand.act(Check() if legal.can_check else Fold())
        match.finish_hand(hand)
    assert blinds == [2, 2, 4, 8]


def test_max_hands_stops_the_freezeout_and_places_by_chips() -> None:
    match = _freezeout(max_hands=3, starting_stack=1000)
    standings = match.play(random_policy(random.Random(11)))  # three players last 3 hands
    assert match.is_over and match.table.hands_played == 3
    assert match.winner is None
    seated = [s for s in standings if s.busted_hand_number is None]
    chips = [s.chips for s in seated]
    assert chips == sorted(chips, reverse=True)
    assert sum(chips) == 5000
    with pytest.raises(TournamentError, match="the freezeout is over") as info:
        match.next_hand()
    assert info.value.code == "tournament_over"


def test_equal_chip_counts_share_a_provisional_place() -> None:
    match = _freezeout()
    standings = match.standings()
    assert [s.place for s in standings] == [1] * 5
    assert all(s.is_shared for s in standings)
    assert [s.player_id for s in standings] == PLAYERS  # by seat


def test_freezeout_seats_players_in_order_at_a_larger_table() -> None:
    match = _freezeout(seat_count=9, first_button_index=3)
    assert match.table.seat_count == 9
    assert [seat.seat_index for seat in match.table.seats] == [0, 1, 2, 3, 4]
    hand = match.next_hand()
    assert hand.button_index == 3
    with pytest.raises(TableError, match="hand 1 is still in progress") as info:
        match.next_hand()
    assert info.value.code == "hand_in_progress"


def test_bad_freezeout_setups_are_rejected() -> None:
    with pytest.raises(TournamentError, match=r"at least two players, got \['ann'\]") as info:
        Freezeout(GameConfig(), ["ann"], starting_stack=100, seed=1)
    assert info.value.code == "bad_players"
    with pytest.raises(TournamentError, match=r"no starting stack for player\(s\) bob") as info:
        Freezeout(GameConfig(), ["ann", "bob"], starting_stack={"ann": 100}, seed=1)
    assert info.value.code == "bad_players"
    for bad in (0, -1, 2.5, True):
        with pytest.raises(TournamentError, match=f"max_hands must be .* got {bad!r}") as info:
            _freezeout(max_hands=bad)
        assert info.value.code == "bad_max_hands"
    with pytest.raises(TableError, match="player 'ann' is already seated") as seat_info:
        Freezeout(GameConfig(), ["ann", "ann"], starting_stack=100, seed=1)
    assert seat_info.value.code == "duplicate_player"
    with pytest.raises(TableError, match="all 2 seats are taken"):
        Freezeout(GameConfig(), ["a", "b", "c"], starting_stack=100, seed=1, seat_count=2)
    with pytest.raises(TableError, match="must be a positive integer, got -5"):
        Freezeout(GameConfig(), ["a", "b"], starting_stack=-5, seed=1)


def test_tournament_errors_are_value_errors_with_a_code() -> None:
    error = TournamentError("tournament_over", "over")
    assert isinstance(error, ValueError) and isinstance(error, TableError)
    assert error.code == "tournament_over"


def test_random_policy_only_plays_legal_actions_and_needs_a_decision() -> None:
    policy = random_policy(random.Random(0))
    match = _freezeout(starting_stack=40)
    hand = match.next_hand()
    while not hand.is_over:
        hand.act(policy(hand))  # IllegalActionError would fail the test
    with pytest.raises(TournamentError, match="not waiting for a decision") as info:
        policy(hand)
    assert info.value.code == "no_decision"


def test_a_five_card_draw_freezeout_plays_to_the_end() -> None:
    config = GameConfig(small_blind=5, big_blind=10, variant=Variant.FIVE_CARD_DRAW)
    match = Freezeout(config, PLAYERS, starting_stack=200, seed="draw")
    standings = match.play(random_policy(random.Random(2)))
    assert standings[0].chips == 1000 and match.winner == standings[0].player_id


def test_random_policy_keeps_an_ace_when_it_draws_four() -> None:
    config = GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    for seed in range(30):
        hand = Hand.start(
            config,
            [SeatSetup(0, "a", 100), SeatSetup(1, "b", 100)],
            button_index=0,
            rng=random.Random(seed),
        )
        policy = random_policy(random.Random(seed))
        while not hand.is_over:
            hand.act(policy(hand))  # an illegal discard would raise
