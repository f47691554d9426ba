"""The table: seats, joining and leaving between hands, the moving button, eliminations."""

from __future__ import annotations

import random

import pytest

from engine.actions import AllIn, Call, Check, Fold
from engine.config import GameConfig
from engine.deck import Deck
from engine.errors import EngineError, InvariantError
from engine.hand import Hand
from engine.schedule import BlindLevel, BlindSchedule
from engine.table import Table, TableError, hand_rng, hand_seed
from tests.engine.policies import random_policy

CONFIG = GameConfig(small_blind=1, big_blind=2)


def _table(seat_count: int = 6, **kwargs: object) -> Table:
    return Table(CONFIG, seat_count=seat_count, **kwargs)  # type: ignore[arg-type]


def _fold_to_the_blinds(hand: Hand) -> None:
    """Everybody folds (the big blind checks or calls if it is its turn)."""
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if legal.can_check else Fold())


def _play_random(hand: Hand, seed: int = 0) -> None:
    policy = random_policy(random.Random(seed))
    while not hand.is_over:
        hand.act(policy(hand))


def _shove_and_call(hand: Hand) -> None:
    """Everybody goes all-in (or calls an all-in)."""
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(AllIn() if legal.can_raise else Call())


# ------------------------------------------------------------------ seats


def test_join_takes_the_lowest_free_seat_or_the_chosen_one() -> None:
    table = _table()
    assert table.join("a", 100) == 0
    assert table.join("b", 100, seat_index=4) == 4
    assert table.join("c", 100) == 1
    assert table.player_ids == ("a", "c", "b")
    assert [seat.seat_index for seat in table.seats] == [0, 1, 4]
    assert table.stacks == {"a": 100, "c": 100, "b": 100}
    assert table.seat_of("b").seat_index == 4


def test_join_a_full_table_is_rejected() -> None:
    table = _table(seat_count=2)
    table.join("a", 100)
    table.join("b", 100)
    with pytest.raises(TableError, match="cannot seat 'c': all 2 seats are taken") as info:
        table.join("c", 100)
    assert info.value.code == "table_full"


def test_duplicate_player_id_is_rejected() -> None:
    table = _table()
    table.join("a", 100)
    with pytest.raises(TableError, match="player 'a' is already seated") as info:
        table.join("a", 50)
    assert info.value.code == "duplicate_player"


def test_taken_seat_is_rejected() -> None:
    table = _table()
    table.join("a", 100, seat_index=2)
    with pytest.raises(TableError, match="seat 2 is taken by 'a'") as info:
        table.join("b", 100, seat_index=2)
    assert info.value.code == "seat_taken"


@pytest.mark.parametrize("seat_index", [-1, 6, 2.0, True])
def test_bad_seat_index_is_rejected(seat_index: object) -> None:
    with pytest.raises(TableError, match=f"seat index must be 0..5, got {seat_index!r}") as info:
        _table().join("a", 100, seat_index=seat_index)  # type: ignore[arg-type]
    assert info.value.code == "bad_seat_index"


@pytest.mark.parametrize("stack", [-5, 0, 10.5, True, "100"])
def test_negative_or_non_integer_stack_is_rejected(stack: object) -> None:
    with pytest.raises(TableError, match=f"must be a positive integer, got {stack!r}") as info:
        _table().join("a", stack)  # type: ignore[arg-type]
    assert info.value.code == "bad_stack"


@pytest.mark.parametrize("player_id", ["", 7, None])
def test_bad_player_id_is_rejected(player_id: object) -> None:
    with pytest.raises(TableError, match=f"non-empty string, got {player_id!r}") as info:
        _table().join(player_id, 100)  # type: ignore[arg-type]
    assert info.value.code == "bad_player_id"


@pytest.mark.parametrize("seat_count", [1, 11, 0, "6", True])
def test_seat_count_must_be_two_to_ten(seat_count: object) -> None:
    with pytest.raises(TableError, match=f"seat_count must be 2..10, got {seat_count!r}") as info:
        Table(CONFIG, seat_count=seat_count)  # type: ignore[arg-type]
    assert info.value.code == "bad_seat_count"


def test_table_errors_are_engine_and_value_errors() -> None:
    with pytest.raises(EngineError):
        _table().leave("ghost")
    with pytest.raises(ValueError, match="player 'ghost' is not seated") as info:
        _table().leave("ghost")
    assert info.value.code == "unknown_player"  # type: ignore[attr-defined]


def test_leave_between_hands_frees_the_seat() -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 120)
    left = table.leave("b")
    assert (left.seat_index, left.player_id, left.stack) == (1, "b", 120)
    assert table.player_ids == ("a",)
    assert table.join("c", 100) == 1


def test_leave_mid_hand_is_rejected() -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 100)
    table.start_hand(random.Random(1))
    with pytest.raises(TableError, match="cannot leave 'b' during hand 1") as info:
        table.leave("b")
    assert info.value.code == "hand_in_progress"
    with pytest.raises(TableError, match="cannot join 'c' during hand 1"):
        table.join("c", 100)
    assert table.player_ids == ("a", "b")


def test_bad_table_options_are_rejected() -> None:
    with pytest.raises(TableError, match=r"seat index must be 0..3, got 4"):
        _table(seat_count=4, first_button_index=4)
    with pytest.raises(TableError, match="first_hand_number must be a positive integer, got 0"):
        _table(first_hand_number=0)
    with pytest.raises(TableError, match="timed blind schedule needs a clock") as info:
        _table(schedule=BlindSchedule.doubling(1, 2, every_seconds=60))
    assert info.value.code == "no_clock"


# ------------------------------------------------------------------ hands


def test_hand_needs_two_players_with_chips() -> None:
    table = _table()
    assert not table.can_start_hand
    table.join("a", 100)
    assert not table.can_start_hand
    with pytest.raises(TableError, match=r"at least two players .* found 1") as info:
        table.start_hand(random.Random(0))
    assert info.value.code == "not_enough_players"
    table.join("b", 100)
    assert table.can_start_hand
    # Sitting out does not count: the hand engine deals an absent player in anyway.
    table.sit_out("b")
    assert table.can_start_hand and table.dealt_in_count == 2


def test_start_hand_needs_a_seeded_rng_or_a_deck() -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 100)
    with pytest.raises(TableError, match="needs a seeded rng or a deck") as info:
        table.start_hand()
    assert info.value.code == "no_shuffle"
    hand = table.start_hand(deck=Deck.stacked("AsAd KsKd"))
    assert hand.hand_number == 1


def test_one_hand_at_a_time() -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 100)
    hand = table.start_hand(random.Random(0))
    assert table.current_hand is hand and table.current_hand_number == 1
    assert not table.can_start_hand
    with pytest.raises(TableError, match="hand 1 is still in progress") as info:
        table.start_hand(random.Random(0))
    assert info.value.code == "hand_in_progress"
    with pytest.raises(TableError, match="hand 1 is not over") as info:
        table.finish_hand(hand)
    assert info.value.code == "hand_not_over"
    _fold_to_the_blinds(hand)
    other = Table(CONFIG, seat_count=2)
    other.join("x", 10)
    other.join("y", 10)
    stranger = other.start_hand(random.Random(0))
    with pytest.raises(TableError, match=r"not the hand in progress \(hand 1\)") as info:
        table.finish_hand(stranger)
    assert info.value.code == "wrong_hand"
    assert table.finish_hand(hand) == ()
    assert table.current_hand is None and table.current_hand_number is None
    with pytest.raises(TableError, match="no hand is in progress") as info:
        table.finish_hand(hand)
    assert info.value.code == "no_hand_in_progress"


def test_hand_numbers_count_up_from_the_first_hand_number() -> None:
    table = _table(first_hand_number=41)
    table.join("a", 100)
    table.join("b", 100)
    numbers = []
    for seed in range(3):
        assert table.next_hand_number == 41 + seed
        hand = table.start_hand(random.Random(seed))
        numbers.append(hand.hand_number)
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
    assert numbers == [41, 42, 43]
    assert table.hands_played == 3


def test_finish_hand_applies_the_final_stacks() -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 100)
    table.join("c", 100)
    hand = table.start_hand(random.Random(3))
    _play_random(hand, seed=3)
    final = dict(hand.stacks)
    table.finish_hand(hand)
    assert {seat.seat_index: seat.stack for seat in table.seats} == {
        index: stack for index, stack in final.items() if stack > 0
    }
    assert sum(table.stacks.values()) == 300


def test_broken_chip_conservation_stops_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 100)
    hand = table.start_hand(random.Random(0))
    _fold_to_the_blinds(hand)
    monkeypatch.setattr(Hand, "stacks", property(lambda self: {0: 150, 1: 100}))
    with pytest.raises(InvariantError, match="200 chips before, 250 after") as info:
        table.finish_hand(hand)
    assert info.value.code == "chips_not_conserved"


# ------------------------------------------------------------------ button


def test_first_button_is_the_first_seat_in_seat_order() -> None:
    table = _table()
    assert table.next_button_index() is None
    table.join("a", 100, seat_index=2)
    table.join("b", 100, seat_index=4)
    assert table.next_button_index() == 2
    hand = table.start_hand(random.Random(0))
    assert table.button_index == 2
    assert hand.view(None).button_index == 2


def test_first_button_at_a_chosen_seat_or_the_next_one_dealt_in() -> None:
    table = _table(first_button_index=3)
    table.join("a", 100, seat_index=0)
    table.join("b", 100, seat_index=4)
    assert table.next_button_index() == 4
    table = _table(first_button_index=5)
    table.join("a", 100, seat_index=0)
    table.join("b", 100, seat_index=4)
    assert table.next_button_index() == 0  # wraps around past the last seat


def test_button_moves_to_next_seat_with_chips() -> None:
    table = _table()
    for seat_index in (0, 2, 5):
        table.join(f"p{seat_index}", 100, seat_index=seat_index)
    buttons = []
    for seed in range(4):
        hand = table.start_hand(random.Random(seed))
        buttons.append(table.button_index)
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
    assert buttons == [0, 2, 5, 0]


def test_button_skips_empty_seats_and_ignores_sitting_out() -> None:
    table = _table()
    for seat_index in (0, 1, 3):
        table.join(f"p{seat_index}", 100, seat_index=seat_index)
    hand = table.start_hand(random.Random(0))
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    table.sit_out("p1")
    assert table.next_button_index() == 1
    hand = table.start_hand(random.Random(1))
    # The flag reaches the hand, which still deals the absent player in.
    assert [seat.is_sitting_out for seat in hand.seats] == [False, True, False]
    assert len(hand.view(1).hole_cards) == 2
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    table.sit_in("p1")
    assert not table.seat_of("p1").is_sitting_out
    assert table.next_button_index() == 3
    table.leave("p3")
    assert table.next_button_index() == 0


def test_sitting_out_mid_hand_applies_from_the_next_hand() -> None:
    table = _table()
    table.join("a", 100)
    table.join("b", 100)
    table.join("c", 100)
    hand = table.start_hand(random.Random(0))
    table.sit_out("c")
    assert table.seat_of("c").is_sitting_out
    assert not hand.seats[2].is_sitting_out
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    assert table.seat_of("c").is_sitting_out
    assert table.start_hand(random.Random(1)).seats[2].is_sitting_out


# ------------------------------------------------------------------ eliminations


def test_player_busted_is_eliminated_with_the_hand_number() -> None:
    table = _table()
    table.join("short", 10)
    table.join("big", 100)
    # Seat 0 is the button (small blind heads-up); cards go one at a time from seat 1,
    # so seat 1 holds two aces and seat 0 seven-deuce on a board of 8s Kd Qh Js 5h.
    deck = Deck.stacked("Ah 7c As 2d 3h 8s Kd Qh 9c Js Tc 5h")
    hand = table.start_hand(deck=deck)
    _shove_and_call(hand)
    busted = table.finish_hand(hand)
    assert [(e.player_id, e.seat_index, e.hand_number, e.starting_stack) for e in busted] == [
        ("short", 0, 1, 10)
    ]
    assert table.player_ids == ("big",)
    assert table.stacks == {"big": 110}
    assert table.eliminations == busted
    assert not table.can_start_hand


def test_players_busted_in_one_hand_are_ordered_by_starting_stack() -> None:
    busted_seen = []
    for seed in range(200):
        table = _table(seat_count=4)
        table.join("a", 20)
        table.join("b", 40)
        table.join("c", 40)
        table.join("d", 200)
        hand = table.start_hand(random.Random(seed))
        _shove_and_call(hand)
        busted = table.finish_hand(hand)
        keys = [(-e.starting_stack, e.seat_index) for e in busted]
        assert keys == sorted(keys)
        if len(busted) >= 2:
            busted_seen.append(busted)
    assert busted_seen


# ------------------------------------------------------------------ blinds


def test_table_applies_the_schedule_blinds_to_each_hand() -> None:
    schedule = BlindSchedule([BlindLevel(1, 2), BlindLevel(5, 10, ante=1)], every_hands=2)
    table = _table(schedule=schedule)
    table.join("a", 1000)
    table.join("b", 1000)
    seen = []
    for seed in range(3):
        assert table.next_level() == schedule.level_for(hands_played=seed)
        hand = table.start_hand(random.Random(seed))
        assert table.last_config is not None
        seen.append((table.last_config.small_blind, table.last_config.big_blind))
        assert hand.view(None).big_blind == table.last_config.big_blind
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
    assert seen == [(1, 2), (1, 2), (5, 10)]
    assert table.config is CONFIG and table.schedule is schedule and table.seat_count == 6


def test_time_based_levels_read_injected_clock() -> None:
    now = [1000.0]
    table = _table(schedule=BlindSchedule.doubling(1, 2, every_seconds=60), clock=lambda: now[0])
    table.join("a", 1000)
    table.join("b", 1000)
    assert table.next_level() == BlindLevel(1, 2)  # before the first hand: no time passed
    blinds = []
    for step in (0.0, 59.0, 61.0, 150.0):
        now[0] = 1000.0 + step
        hand = table.start_hand(random.Random(0))
        blinds.append(hand.view(None).big_blind)
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
    # The clock starts at the first hand; a new level applies from the next hand dealt.
    assert blinds == [2, 2, 4, 8]


def test_table_without_schedule_uses_its_config() -> None:
    table = _table()
    assert table.next_level() is None


def test_started_at_sets_the_start_of_a_timed_schedule() -> None:
    table = _table(
        schedule=BlindSchedule.doubling(1, 2, every_seconds=10), clock=lambda: 25.0, started_at=0.0
    )
    assert table.next_level() == BlindLevel(4, 8)


# ------------------------------------------------------------------ seeds


def test_hand_seeds_derive_from_the_match_seed_and_hand_number() -> None:
    assert hand_seed("m", 3) == "m:3"
    first = [hand_rng(7, n).random() for n in range(1, 4)]
    assert first == [hand_rng(7, n).random() for n in range(1, 4)]
    assert len(set(first)) == 3
    assert hand_rng(7, 1).random() != hand_rng(8, 1).random()


def test_reset_stacks_seats_exactly_the_players_given_as_leave_and_join_would() -> None:
    table = Table(GameConfig(small_blind=1, big_blind=2), seat_count=3)
    table.join("a", 10, seat_index=0)
    table.join("c", 30, seat_index=2)
    table.sit_out("a")
    table.reset_stacks([(0, "a"), (2, "c")], 50)  # the same seats: stacks reset, sitting in
    assert table.stacks == {"a": 50, "c": 50}
    assert not any(seat.is_sitting_out for seat in table.seats)
    table.leave("c")  # busted and gone: it joins again
    table.reset_stacks([(0, "a"), (1, "b"), (2, "c")], 40)
    assert [(s.seat_index, s.player_id, s.stack) for s in table.seats] == [
        (0, "a", 40),
        (1, "b", 40),
        (2, "c", 40),
    ]
    with pytest.raises(TableError, match="positive integer"):
        table.reset_stacks([(0, "a"), (1, "b"), (2, "c")], 0)
    hand = table.start_hand(hand_rng(1, 1))
    with pytest.raises(TableError, match="during hand"):
        table.reset_stacks([(0, "a")], 40)
    assert not hand.is_over


# ------------------------------------------------------------- dealing ahead


def _events(hand: Hand) -> list[dict[str, object]]:
    return [event.to_dict() for event in hand.events]


def test_deal_ahead_mid_hand_is_the_next_hand_when_stacks_reset() -> None:
    # A reset-stack match deals hand n+1 while hand n is played: the same hand as
    # dealing it after hand n, because nothing hand n does changes the next deal.
    players = [(0, "a"), (1, "b"), (2, "c")]
    ahead_table, plain_table = _table(3), _table(3)
    for table in (ahead_table, plain_table):
        table.reset_stacks(players, 100)
    for number in range(1, 6):
        plain = plain_table.start_hand(hand_rng("m", number))
        current = ahead_table.current_hand or ahead_table.start_hand(hand_rng("m", number))
        assert _events(current) == _events(plain)
        ahead = ahead_table.deal_ahead(hand_rng("m", number + 1))
        assert ahead_table.current_hand is current  # the table did not change
        assert not ahead_table.is_next_hand(ahead)  # hand `number` is still in progress...
        for table, hand in ((ahead_table, current), (plain_table, plain)):
            _play_random(hand, seed=number)
            table.finish_hand(hand)
            table.reset_stacks(players, 100)
        assert ahead_table.is_next_hand(ahead)  # ...and now it is the hand due
        assert ahead_table.start_hand(dealt=ahead) is ahead
        assert ahead_table.current_hand is ahead and ahead_table.hands_played == number + 1
        assert ahead.hand_number == number + 1 == ahead_table.current_hand_number


def test_hand_dealt_ahead_is_stale_when_stacks_carry() -> None:
    table = _table(3)
    for player in "abc":
        table.join(player, 100)
    hand = table.start_hand(hand_rng("m", 1))
    ahead = table.deal_ahead(hand_rng("m", 2))
    _shove_and_call(hand)
    table.finish_hand(hand)  # stacks changed (and somebody may have busted)
    assert not table.is_next_hand(ahead)
    with pytest.raises(TableError, match="dealt ahead") as caught:
        table.start_hand(dealt=ahead)
    assert caught.value.code == "stale_hand"
    assert table.current_hand is None and table.next_hand_number == 2  # nothing changed


def test_hand_dealt_ahead_is_stale_after_a_timed_level_change() -> None:
    now = [0.0]
    table = _table(3, schedule=BlindSchedule.doubling(1, 2, every_seconds=60), clock=lambda: now[0])
    table.reset_stacks([(0, "a"), (1, "b")], 100)
    hand = table.start_hand(hand_rng("m", 1))
    ahead = table.deal_ahead(hand_rng("m", 2))
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    table.reset_stacks([(0, "a"), (1, "b")], 100)
    assert table.is_next_hand(ahead)
    now[0] = 61.0  # the next level begins before the hand dealt ahead starts
    assert not table.is_next_hand(ahead)
    assert table.start_hand(hand_rng("m", 2)).config.big_blind == 4


def test_deal_ahead_needs_a_shuffle_and_two_players() -> None:
    table = _table(3)
    table.join("a", 100)
    with pytest.raises(TableError) as caught:
        table.deal_ahead(hand_rng("m", 1))
    assert caught.value.code == "not_enough_players"
    table.join("b", 100)
    with pytest.raises(TableError) as caught:
        table.deal_ahead()
    assert caught.value.code == "no_shuffle"
    ahead = table.deal_ahead(deck=Deck.shuffled(random.Random(1)))
    assert table.is_next_hand(ahead)
    table.leave("b")
    assert not table.is_next_hand(ahead)  # one player left: no hand is due at all
