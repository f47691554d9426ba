"""The faster dataclass constructor keeps the dataclass's behaviour (engine.fastinit)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from engine.actions import LegalActions
from engine.events import ActionTaken, Event
from engine.fastinit import fast_init


def test_fast_init_keeps_the_signature_defaults_and_frozenness() -> None:
    legal = LegalActions(0, 10, 2, 1, True, False, True, 1, True, 4, 11)
    assert legal.can_draw is False and legal.max_discard_count == 0
    assert dataclasses.replace(legal, can_raise=False).can_raise is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        legal.stack = 5  # type: ignore[misc]
    parameters = inspect.signature(LegalActions).parameters
    assert list(parameters) == [item.name for item in dataclasses.fields(LegalActions)]
    assert parameters["can_draw"].default is False
    assert Event() == Event()
    assert "ActionTaken.__init__" in ActionTaken.__init__.__qualname__


def test_fast_init_refuses_what_it_cannot_build() -> None:
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        amount: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        cards: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithPostInit:
        amount: int

        def __post_init__(self) -> None:
            pass

    for cls in (Unslotted, WithFactory, WithPostInit):
        with pytest.raises(TypeError):
            fast_init(cls)
