"""The arena's policy (:mod:`arena.session.policy`): the default action and the time limits."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from arena.session.policy import TimeLimits, default_action
from engine.actions import Call, Check, Discard, Fold, LegalActions


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
