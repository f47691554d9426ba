"""The stack formats (:mod:`arena.match.formats`): stacks reset every hand, carried with
eliminations, or a freezeout until one bot has every chip; in whole matches first, then
each format on its own (deal, deal ahead, eliminations, the end, the standings)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from arena.bots.in_memory import FakeClock
from arena.match.config import MatchConfig, MatchError, StackPolicy
from arena.match.formats import CarriedStacks, FreezeoutStacks, ResetStacks, format_for
from arena.match.results import MatchResult
from engine.actions import Action, AllIn, Call, Check, Fold
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


# -- each format on its own -------------------------------------------------------------------


def _play_out(hand: Hand, choose: Callable[[Hand], Action]) -> Hand:
    while not hand.is_over:
        hand.act(choose(hand))
    return hand


def _all_in_or_call(hand: Hand) -> Action:
    legal = hand.legal_actions()
    assert legal is not None
    return AllIn() if legal.can_all_in else (Call() if legal.can_call else Check())


def _fold_or_check(hand: Hand) -> Action:
    legal = hand.legal_actions()
    assert legal is not None
    return Check() if legal.can_check else Fold()


def test_format_for_gives_one_strategy_object_per_stack_policy() -> None:
    kinds = {
        policy: type(format_for(MatchConfig(stack_policy=policy), ["p0", "p1"]))
        for policy in (StackPolicy.RESET, StackPolicy.CARRY)
    }
    freezeout = format_for(
        MatchConfig(hand_count=None, stack_policy=StackPolicy.FREEZEOUT), ["a", "b"]
    )
    assert kinds == {StackPolicy.RESET: ResetStacks, StackPolicy.CARRY: CarriedStacks}
    assert type(freezeout) is FreezeoutStacks
    modes = [ResetStacks.result_mode, CarriedStacks.result_mode, FreezeoutStacks.result_mode]
    assert modes == ["hands", "carry", "freezeout"]


def test_reset_stacks_deal_every_hand_from_the_starting_stack_and_nobody_busts() -> None:
    config = MatchConfig(hand_count=3, seed=4, starting_stack=50)
    stacks = ResetStacks(config, ["p0", "p1"], clock=FakeClock())
    assert not stacks.is_carried and stacks.progress_note() == ""
    hand = _play_out(stacks.deal(), _all_in_or_call)
    assert sorted(hand.stacks.values()) != [50, 50]  # somebody won chips
    assert stacks.finish_hand(hand) == []
    assert not stacks.is_over(1)
    second = stacks.deal()
    assert second.hand_number == 2
    assert [setup.stack for setup in second.seats] == [50, 50]
    assert stacks.is_over(3) and not stacks.is_over(2)
    assert stacks.ended_reason() == "hand_count"


def test_reset_stacks_use_a_hand_dealt_ahead_only_when_it_is_the_hand_due() -> None:
    config = MatchConfig(hand_count=5, seed=4)
    stacks = ResetStacks(config, ["p0", "p1", "p2"], clock=FakeClock())
    first = stacks.deal()
    ahead = stacks.deal_ahead(after=first)
    assert ahead is not None and ahead.hand_number == 2
    stacks.finish_hand(_play_out(first, _fold_or_check))
    assert stacks.deal(dealt_ahead=ahead) is ahead
    # A hand dealt ahead for another moment (here: hand 2 again, at hand 3) is not used;
    # the hand due is dealt from the seed instead.
    stacks.finish_hand(_play_out(ahead, _fold_or_check))
    third = stacks.deal(dealt_ahead=ahead)
    assert third is not ahead and third.hand_number == 3


def test_reset_standings_rank_by_chips_won_and_share_equal_places() -> None:
    config = MatchConfig(hand_count=1, starting_stack=100)
    stacks = ResetStacks(config, ["p0", "p1", "p2", "p3"], clock=FakeClock())
    standings = stacks.standings({"p0": -20, "p1": 10, "p2": 10, "p3": 0})
    assert [(s.place, s.player_id, s.chips, s.is_shared) for s in standings] == [
        (1, "p1", 110, True),
        (1, "p2", 110, True),
        (3, "p3", 100, False),
        (4, "p0", 80, False),
    ]
    assert all(s.busted_hand_number is None for s in standings)


def test_carried_stacks_eliminate_a_busted_player_and_end_with_one_left() -> None:
    config = MatchConfig(hand_count=50, seed=3, starting_stack=40, stack_policy=StackPolicy.CARRY)
    stacks = CarriedStacks(config, ["p0", "p1"], clock=FakeClock())
    assert stacks.is_carried
    hand = stacks.deal()
    assert stacks.deal_ahead(after=hand) is None  # the next stacks depend on this hand
    eliminated: list[str] = []
    while not stacks.is_over(0):
        eliminated += stacks.finish_hand(_play_out(hand, _all_in_or_call))
        if not stacks.is_over(0):
            hand = stacks.deal()
    assert len(eliminated) == 1
    assert stacks.ended_reason() == "one_player_left"
    assert stacks.progress_note() == "1 left"
    standings = stacks.standings({})
    assert [s.place for s in standings] == [1, 2]
    assert standings[0].chips == 80 and standings[1].player_id == eliminated[0]
    assert standings[1].busted_hand_number == hand.hand_number


@pytest.mark.parametrize(
    ("policy", "reason"), [(StackPolicy.CARRY, "hand_count"), (StackPolicy.FREEZEOUT, "max_hands")]
)
def test_carried_stacks_cut_short_by_the_hand_count_say_why(
    policy: StackPolicy, reason: str
) -> None:
    config = MatchConfig(hand_count=2, seed=3, stack_policy=policy)
    stacks = format_for(config, ["p0", "p1", "p2"], clock=FakeClock())
    for _ in range(2):
        assert not stacks.is_over(0)
        assert stacks.finish_hand(_play_out(stacks.deal(), _fold_or_check)) == []
    assert stacks.is_over(2)
    assert stacks.ended_reason() == reason
    assert stacks.progress_note() == "3 left"
    # Nobody busted: the survivors are placed by chips.
    standings = stacks.standings({})
    assert sorted(s.chips for s in standings) == sorted(stacks.table.stacks.values())
    assert sum(s.chips for s in standings) == 600


def test_carried_stacks_stop_the_match_when_chips_go_missing() -> None:
    config = MatchConfig(hand_count=5, seed=3, stack_policy=StackPolicy.CARRY)
    stacks = CarriedStacks(config, ["p0", "p1"], clock=FakeClock())
    hand = _play_out(stacks.deal(), _fold_or_check)
    stacks._total_chips += 1  # the table now holds one chip fewer than it should
    with pytest.raises(MatchError, match="after hand 1 the table holds 400 chips, expected 401"):
        stacks.finish_hand(hand)
