"""The stack formats (:mod:`arena.match.formats`) in whole matches: stacks reset every hand,
carried with eliminations, or a freezeout until one bot has every chip."""

from __future__ import annotations

from pathlib import Path

from arena.bots.in_memory import FakeClock
from arena.match.config import MatchConfig, StackPolicy
from arena.match.formats import format_for
from arena.match.results import MatchResult
from engine.hand import Hand
from engine.schedule import BlindSchedule
from tests.arena.scripted import (
    assert_chips_conserved,
    calling_station,
    folder,
    hand_records,
    min_raiser,
    play,
    read_records,
    shover,
)


def test_reset_policy_starts_every_hand_from_the_starting_stack(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=12, seed=3, starting_stack=150)
    result = play([calling_station, min_raiser, shover], config, tmp_path)
    assert result.hands_played == 12
    assert result.mode == "hands"
    for record in hand_records(tmp_path):
        assert [seat["stack"] for seat in record["history"]["seats"]] == [150, 150, 150]
    assert_chips_conserved(result)
    assert all(player.hands_played == 12 for player in result.players)
    assert all(player.final_stack is None for player in result.players)
    assert (tmp_path / "results.json").is_file()
    assert MatchResult.read_json(tmp_path / "results.json").to_dict() == result.to_dict()


def test_no_hand_is_dealt_ahead_with_carried_stacks_or_a_timed_schedule() -> None:
    def ahead_of_the_first_hand(config: MatchConfig) -> Hand | None:
        stack_format = format_for(config, ["p0", "p1"], clock=FakeClock())
        return stack_format.deal_ahead(after=stack_format.deal())

    counted = BlindSchedule.doubling(1, 2, every_hands=1)
    assert ahead_of_the_first_hand(MatchConfig(stack_policy=StackPolicy.CARRY)) is None
    timed = MatchConfig(schedule=BlindSchedule.doubling(1, 2, every_seconds=60))
    assert ahead_of_the_first_hand(timed) is None
    assert ahead_of_the_first_hand(MatchConfig(hand_count=2, schedule=counted)) is not None
    # The last hand is being played: nothing comes after it.
    assert ahead_of_the_first_hand(MatchConfig(hand_count=1, schedule=counted)) is None


def test_carry_policy_eliminates_busted_bots_and_places_them() -> None:
    config = MatchConfig(hand_count=200, seed=11, stack_policy=StackPolicy.CARRY)
    result = play([shover, shover, shover], config)
    assert_chips_conserved(result)
    assert result.mode == "carry"
    assert result.ended_reason == "one_player_left"
    busted = [p for p in result.players if p.eliminated_in_hand is not None]
    assert len(busted) == 2
    assert {p.place for p in result.players} >= {1}
    winner = result.ranked()[0]
    assert winner.final_stack == 600 and winner.eliminated_in_hand is None
    assert all(p.final_stack == 0 for p in busted)


def test_carry_policy_stops_after_the_hand_count() -> None:
    config = MatchConfig(hand_count=5, seed=2, stack_policy=StackPolicy.CARRY)
    result = play([calling_station, folder], config)
    assert result.hands_played == 5
    assert result.ended_reason == "hand_count"
    assert sum(p.final_stack or 0 for p in result.players) == 400


def test_freezeout_plays_until_one_bot_holds_every_chip(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=None,
        seed=4,
        starting_stack=100,
        stack_policy=StackPolicy.FREEZEOUT,
        schedule=BlindSchedule.doubling(1, 2, every_hands=2),
    )
    result = play([calling_station, min_raiser, calling_station, folder], config, tmp_path)
    assert_chips_conserved(result)
    assert result.ended_reason == "one_player_left"
    assert sorted(p.place for p in result.players if p.place is not None)[0] == 1
    assert sum(p.final_stack or 0 for p in result.players) == 400
    end = read_records(tmp_path / "hands.jsonl")[-1]
    assert end["type"] == "match_end" and end["standings"][0]["place"] == 1
    # Blinds double every 2 hands: hand 3 is played at 2/4.
    history = hand_records(tmp_path)[2]["history"]
    assert (history["config"]["small_blind"], history["config"]["big_blind"]) == (2, 4)


def test_freezeout_capped_by_hand_count_places_survivors_by_chips() -> None:
    config = MatchConfig(hand_count=3, seed=4, stack_policy=StackPolicy.FREEZEOUT)
    result = play([calling_station, folder], config)
    assert result.hands_played == 3
    assert result.ended_reason == "max_hands"
    assert result.ranked()[0].final_stack is not None
