"""A match configuration (:mod:`arena.match.config`): every bad value is named."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.luck import LuckValue
from arena.match.config import MatchConfig, MatchConfigError, StackPolicy
from arena.session.policy import TimeBasis, TimeLimits
from engine.schedule import BlindSchedule


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hand_count": 0}, "hand_count must be a positive integer, got 0"),
        ({"hand_count": None}, "hand_count is required"),
        ({"seed": "x"}, "seed must be an integer, got 'x'"),
        ({"starting_stack": 0}, "starting_stack must be a positive integer, got 0"),
        ({"time_limits": "5s"}, "time_limits must be TimeLimits, got '5s'"),
        ({"max_invalid_attempts": 0}, "max_invalid_attempts must be at least 1, got 0"),
        ({"restart_budget": -1}, "restart_budget must be a non-negative integer, got -1"),
        ({"hung_after_timeouts": 0}, "hung_after_timeouts must be a positive integer, got 0"),
        ({"hung_after_timeouts": 2.5}, "hung_after_timeouts must be a positive integer, got 2.5"),
        ({"hung_after_timeouts": True}, "hung_after_timeouts must be a positive integer, got True"),
        ({"allow_absent_bots": "yes"}, "allow_absent_bots must be true or false, got 'yes'"),
        ({"luck_value": {0: {"raised": 1.0}}}, "luck_value must be a LuckValue, got {0: "),
    ],
)
def test_bad_match_config_names_the_bad_value(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(MatchConfigError, match=message):
        MatchConfig(**changes)


def test_match_config_round_trips_through_json_form() -> None:
    config = MatchConfig(
        hand_count=None,
        seed=9,
        stack_policy=StackPolicy.FREEZEOUT,
        schedule=BlindSchedule.doubling(1, 2, every_hands=3),
        check_on_timeout=True,
    )
    assert config.match_id == "match"  # never made from the seed
    assert MatchConfig.from_dict(config.to_dict()) == config


def test_replace_keeps_config_valid() -> None:
    config = replace(MatchConfig(), hand_count=7)
    assert config.hand_count == 7


def test_prefetch_is_a_speed_switch_that_is_not_recorded() -> None:
    with pytest.raises(MatchConfigError, match="prefetch must be true or false, got 'no'"):
        MatchConfig(prefetch="no")  # type: ignore[arg-type]
    off = MatchConfig(seed=4, prefetch=False)
    # Nothing a bot receives or the history records depends on it: it is not in to_dict,
    # so a match with it off is written (and replayed) exactly as with it on.
    assert off.to_dict() == MatchConfig(seed=4).to_dict()
    assert "prefetch" not in off.to_dict()
    assert MatchConfig.from_dict(off.to_dict()).prefetch is True


def test_hung_after_timeouts_is_recorded_and_defaults_to_three() -> None:
    config = MatchConfig(hung_after_timeouts=5)
    assert config.to_dict()["hung_after_timeouts"] == 5
    assert MatchConfig.from_dict(config.to_dict()) == config
    older = {k: v for k, v in config.to_dict().items() if k != "hung_after_timeouts"}
    assert (
        MatchConfig.from_dict(older).hung_after_timeouts == 3 == MatchConfig().hung_after_timeouts
    )


def test_allow_absent_bots_is_off_by_default_and_not_recorded() -> None:
    # It decides whether a match may begin at all; once begun, it changes nothing recorded.
    assert MatchConfig().allow_absent_bots is False
    allowed = MatchConfig(seed=4, allow_absent_bots=True)
    assert allowed.to_dict() == MatchConfig(seed=4).to_dict()
    assert "allow_absent_bots" not in allowed.to_dict()


#: A match config as a run folder of an older arena holds it: the time limits as flat
#: fields, before ``hung_after_timeouts``, ``time_basis`` and ``luck`` were written.
OLD_CONFIG = Path(__file__).parent / "data" / "config_before_time_basis.json"


def test_a_config_stored_in_the_old_flat_shape_loads_its_time_limits_whole() -> None:
    stored = json.loads(OLD_CONFIG.read_text(encoding="utf-8"))
    config = MatchConfig.from_dict(stored)
    assert config.time_limits == TimeLimits(decision_s=0.5, startup_s=3.0, time_bank_s=7.5)
    assert config.time_limits.time_basis is TimeBasis.WALL  # the only basis back then
    # It is written back in the same flat fields (the keys added since are the only news).
    assert {key: config.to_dict()[key] for key in stored} == stored
    assert "time_limits" not in config.to_dict()


def test_match_config_holds_one_time_limits_value_carried_whole() -> None:
    limits = TimeLimits(decision_s=0.25, startup_s=2.0, time_bank_s=1.5, time_basis=TimeBasis.CPU)
    config = MatchConfig(time_limits=limits)
    assert config.time_limits is limits
    assert MatchConfig.from_dict(config.to_dict()).time_limits == limits
    assert MatchConfig().time_limits == TimeLimits()  # one default: the time limits' own


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("decision_timeout_s", 0, "decision_s must be a positive number of seconds, got 0"),
        ("startup_timeout_s", "10", "startup_s must be a positive number of seconds, got '10'"),
        ("time_bank_s", -1, "time_bank_s must be a non-negative number of seconds, got -1"),
    ],
)
def test_a_stored_config_with_a_bad_time_limit_names_it(
    field: str, value: object, message: str
) -> None:
    stored = {**MatchConfig().to_dict(), field: value}
    with pytest.raises(MatchConfigError, match=message):
        MatchConfig.from_dict(stored)


def test_the_luck_value_is_recorded_only_when_not_the_shipped_weights_and_round_trips() -> None:
    # A ladder game's matches estimate with its value fit's weights; replay reads them
    # back from the file, so they are written whole (and a file without them is shipped).
    fitted = LuckValue({3: {"to_call": 0.25}})
    config = MatchConfig(luck=True, luck_value=fitted)
    assert config.to_dict()["luck_value"]["3"] == {
        "raised": 0.0,
        "to_call": 0.25,
        "last_raised": 0.0,
        "made_hand": 0.0,
    }
    assert MatchConfig.from_dict(json.loads(json.dumps(config.to_dict()))) == config
    assert "luck_value" not in MatchConfig(luck=True).to_dict()


@pytest.mark.parametrize(
    ("stored", "message"),
    [
        ({"9": {"raised": 1.0}}, r"luck_value: not streets \(board sizes\): \[9\]"),
        ({"x": {}}, "luck_value: not a street .a board size.: 'x'"),
        ({"0": {"pot": 1.0}}, "luck_value: not value weights: .'pot'."),
        ({"0": {"raised": "big"}}, "luck_value: street 0's 'raised' weight is not a number: 'big'"),
        ([1], r"luck_value: betting weights must be an object by street, got \[1\]"),
    ],
)
def test_a_stored_config_with_bad_betting_weights_names_them(stored: Any, message: str) -> None:
    data = {**MatchConfig(luck=True).to_dict(), "luck_value": stored}
    with pytest.raises(MatchConfigError, match=message):
        MatchConfig.from_dict(data)
