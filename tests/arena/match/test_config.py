"""A match configuration (:mod:`arena.match.config`): every bad value is named."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from arena.match.config import MatchConfig, MatchConfigError, StackPolicy
from engine.schedule import BlindSchedule


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"hand_count": 0}, "hand_count must be a positive integer, got 0"),
        ({"hand_count": None}, "hand_count is required"),
        ({"seed": "x"}, "seed must be an integer, got 'x'"),
        ({"starting_stack": 0}, "starting_stack must be a positive integer, got 0"),
        ({"decision_timeout_s": 0}, "decision_timeout_s must be a positive number, got 0"),
        ({"time_bank_s": -1}, "time_bank_s must be a non-negative number, got -1"),
        ({"max_invalid_attempts": 0}, "max_invalid_attempts must be at least 1, got 0"),
        ({"restart_budget": -1}, "restart_budget must be a non-negative integer, got -1"),
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
    assert config.match_id == "seed9"
    assert MatchConfig.from_dict(config.to_dict()) == config


def test_replace_keeps_config_valid() -> None:
    config = replace(MatchConfig(), hand_count=7)
    assert config.hand_count == 7
