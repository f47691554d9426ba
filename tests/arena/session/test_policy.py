"""The arena's policy (:mod:`arena.session.policy`): the default action and the time limits."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from arena.session.policy import TimeLimits, default_action
from engine.actions import Call, Check, Discard, Fold, LegalActions
from protocol import messages


def _legal(**overrides: Any) -> LegalActions:
    base = LegalActions(
        seat_index=0,
        stack=10,
        current_bet=2,
        committed=0,
        can_fold=True,
        can_check=False,
        can_call=True,
        call_amount=2,
        can_raise=False,
        min_raise_to=0,
        max_raise_to=0,
    )
    return dataclasses.replace(base, **overrides)


def test_default_action_covers_every_case() -> None:
    assert default_action(_legal()) == Fold()
    assert default_action(_legal(), check_when_free=True) == Fold()
    assert default_action(_legal(can_draw=True)) == Discard(())
    assert default_action(_legal(can_fold=False, can_check=True)) == Check()
    assert default_action(_legal(can_fold=False)) == Call()


@pytest.mark.parametrize("name", ["decision_s", "startup_s", "time_bank_s", "grace_s"])
def test_time_limits_reject_negative_or_nan_values(name: str) -> None:
    for bad in (-1.0, math.nan):
        with pytest.raises(ValueError, match=name):
            TimeLimits(**{name: bad})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["decision_s", "startup_s"])
def test_a_decision_and_a_start_up_need_some_time(name: str) -> None:
    # Zero seconds would time every bot out: the one check every source of limits meets.
    with pytest.raises(ValueError, match=f"{name} must be a positive number of seconds, got 0"):
        TimeLimits(**{name: 0})  # type: ignore[arg-type]


def test_no_time_bank_and_no_grace_are_allowed() -> None:
    limits = TimeLimits(time_bank_s=0, match_end_grace_s=0, grace_s=0)
    assert (limits.time_bank_s, limits.match_end_grace_s, limits.grace_s) == (0, 0, 0)


@pytest.mark.parametrize("bad", [True, "5", None])
def test_time_limits_reject_what_is_not_a_number_of_seconds(bad: object) -> None:
    # True is an int to Python, but "True seconds" is a mistake, not one second.
    for name in ("decision_s", "time_bank_s"):
        with pytest.raises(ValueError, match=f"{name} must be a .* number of seconds, got"):
            TimeLimits(**{name: bad})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="wall_backstop must be at least 1"):
        TimeLimits(wall_backstop=bad)  # type: ignore[arg-type]


def test_the_wire_form_is_whole_milliseconds_without_the_grace() -> None:
    wire = TimeLimits(decision_s=0.25, startup_s=1.5, time_bank_s=2.0004, grace_s=1.0).to_wire()
    assert wire == messages.TimeLimits(startup_ms=1500, decision_ms=250, time_bank_ms=2000)
