"""Blind schedules: levels by hands or by injected clock time, doubling, bad input."""

from __future__ import annotations

from typing import Any

import pytest

from engine.config import BettingStructure, ConfigError, GameConfig
from engine.schedule import BlindLevel, BlindSchedule, ScheduleError


def test_blinds_double_every_n_hands() -> None:
    schedule = BlindSchedule.doubling(10, 20, every_hands=5)
    levels = [schedule.level_for(hands_played=n) for n in range(16)]
    assert levels[0] == levels[4] == BlindLevel(10, 20)
    assert levels[5] == levels[9] == BlindLevel(20, 40)
    assert levels[10] == BlindLevel(40, 80)
    assert levels[15] == BlindLevel(80, 160)


def test_doubling_schedule_doubles_the_ante_too() -> None:
    schedule = BlindSchedule.doubling(5, 10, ante=1, every_hands=1)
    assert schedule.level_for(hands_played=3) == BlindLevel(40, 80, 8)
    assert schedule.keeps_doubling


def test_time_based_levels_use_elapsed_seconds() -> None:
    schedule = BlindSchedule.doubling(1, 2, every_seconds=60)
    assert schedule.is_timed
    assert schedule.level_for(elapsed_seconds=0) == BlindLevel(1, 2)
    assert schedule.level_for(elapsed_seconds=59.999) == BlindLevel(1, 2)
    assert schedule.level_for(elapsed_seconds=60) == BlindLevel(2, 4)
    # A timed schedule ignores the hand count.
    assert schedule.level_for(hands_played=1000, elapsed_seconds=130) == BlindLevel(4, 8)


def test_listed_levels_then_the_last_level_lasts_forever() -> None:
    levels = [BlindLevel(1, 2), BlindLevel(2, 4), BlindLevel(2, 4, ante=1), BlindLevel(5, 10, 1)]
    schedule = BlindSchedule(levels, every_hands=3)
    assert not schedule.keeps_doubling and not schedule.is_timed
    assert [schedule.level_index_for(hands_played=n) for n in (0, 2, 3, 8, 9, 100)] == [
        0,
        0,
        1,
        2,
        3,
        33,
    ]
    assert schedule.level(2) == BlindLevel(2, 4, 1)
    assert schedule.level(33) == BlindLevel(5, 10, 1)
    assert schedule.levels == tuple(levels)


def test_constant_schedule_never_changes() -> None:
    schedule = BlindSchedule.constant(5, 10, ante=1)
    assert schedule.level_for(hands_played=10_000) == BlindLevel(5, 10, 1)
    assert schedule.every_hands == 1 and schedule.every_seconds is None


def test_level_applies_blinds_and_ante_to_the_config() -> None:
    config = GameConfig(small_blind=1, big_blind=2, structure=BettingStructure.FIXED_LIMIT)
    applied = BlindLevel(50, 100, ante=10).apply(config)
    assert (applied.small_blind, applied.big_blind, applied.ante) == (50, 100, 10)
    assert applied.structure is BettingStructure.FIXED_LIMIT
    # Fixed-limit bet sizes follow the new big blind.
    assert (applied.small_bet, applied.big_bet) == (100, 200)


def test_schedule_round_trips_through_a_dict() -> None:
    for schedule in (
        BlindSchedule.doubling(10, 20, every_seconds=300),
        BlindSchedule([BlindLevel(1, 2), BlindLevel(2, 4, 1)], every_hands=10),
    ):
        data = schedule.to_dict()
        again = BlindSchedule.from_dict(data)
        assert again == schedule and hash(again) == hash(schedule)
        assert repr(again) == repr(schedule)
    assert BlindSchedule.doubling(1, 2, every_hands=1) != "not a schedule"
    assert "every_seconds=300.0" in repr(BlindSchedule.doubling(10, 20, every_seconds=300))


def test_schedule_with_non_increasing_levels_is_rejected() -> None:
    with pytest.raises(ScheduleError, match=r"level 1 \(10/20\) does not increase") as info:
        BlindSchedule([BlindLevel(10, 20), BlindLevel(10, 20)], every_hands=5)
    assert info.value.code == "levels_not_increasing"
    with pytest.raises(ScheduleError, match=r"level 2 \(20/40\) does not increase on level 1"):
        BlindSchedule(
            [BlindLevel(10, 20), BlindLevel(20, 40, ante=5), BlindLevel(20, 40)], every_hands=5
        )


def test_schedule_errors_are_config_errors_and_value_errors() -> None:
    with pytest.raises(ConfigError):
        BlindSchedule([], every_hands=1)
    with pytest.raises(ValueError, match="at least one level"):
        BlindSchedule([], every_hands=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"small_blind": -1, "big_blind": 2}, "small_blind must be a non-negative integer, got -1"),
        ({"small_blind": 1, "big_blind": 2, "ante": -5}, "ante must be .* got -5"),
        ({"small_blind": 1, "big_blind": 2.5}, "big_blind must be .* got 2.5"),
        ({"small_blind": True, "big_blind": 2}, "small_blind must be .* got True"),
        ({"small_blind": 4, "big_blind": 2}, "small_blind 4 is larger than big_blind 2"),
        ({"small_blind": 0, "big_blind": 0}, "needs a big blind or an ante"),
    ],
)
def test_bad_level_amounts_are_rejected(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ScheduleError, match=message) as info:
        BlindLevel(**kwargs)
    assert info.value.code == "bad_level"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one of every_hands and every_seconds"),
        ({"every_hands": 5, "every_seconds": 60}, "exactly one of"),
        ({"every_hands": 0}, "every_hands must be a positive integer, got 0"),
        ({"every_hands": -3}, "every_hands must be a positive integer, got -3"),
        ({"every_hands": 2.0}, "every_hands must be a positive integer, got 2.0"),
        ({"every_seconds": 0}, "every_seconds must be a positive finite number, got 0"),
        ({"every_seconds": float("inf")}, "got inf"),
        ({"every_seconds": True}, "got True"),
        ({"every_seconds": "60"}, "got '60'"),
    ],
)
def test_bad_level_durations_are_rejected(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ScheduleError, match=message) as info:
        BlindSchedule([BlindLevel(1, 2)], **kwargs)
    assert info.value.code == "bad_duration"


def test_non_level_in_the_list_is_rejected() -> None:
    with pytest.raises(ScheduleError, match=r"level 1 is not a BlindLevel: \(2, 4\)"):
        BlindSchedule([BlindLevel(1, 2), (2, 4)], every_hands=1)  # type: ignore[list-item]


def test_bad_progress_values_are_rejected() -> None:
    hands = BlindSchedule.doubling(1, 2, every_hands=2)
    timed = BlindSchedule.doubling(1, 2, every_seconds=2)
    with pytest.raises(ScheduleError, match="hands_played must be a non-negative integer, got -1"):
        hands.level_for(hands_played=-1)
    with pytest.raises(ScheduleError, match=r"elapsed_seconds must be .* got -0.5") as info:
        timed.level_for(elapsed_seconds=-0.5)
    assert info.value.code == "bad_progress"
    with pytest.raises(ScheduleError, match="got nan"):
        timed.level_for(elapsed_seconds=float("nan"))
    with pytest.raises(ScheduleError, match=r"level index must be .* got -2"):
        hands.level(-2)


def test_schedule_from_a_bad_dict_is_rejected() -> None:
    with pytest.raises(ScheduleError, match="not a blind schedule") as info:
        BlindSchedule.from_dict({"every_hands": 3})
    assert info.value.code == "bad_schedule"
    with pytest.raises(ScheduleError, match="not a blind schedule"):
        BlindSchedule.from_dict({"levels": [{"small": 1}], "every_hands": 3})
