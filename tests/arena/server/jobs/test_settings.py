"""The workers' knobs from the environment (``arena/server/settings.py``): a number of at
least its least value, the default when unset or empty, and a clear error naming the
variable and the value otherwise."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from arena.server.settings import _number

NAME = "ARENA_SERVER_LADDER_GAMES_PER_HOUR"


@pytest.mark.parametrize(("text", "expected"), [(None, 5.0), ("", 5.0), ("12.5", 12.5), ("0", 0.0)])
def test_a_knob_is_its_number_or_the_default(
    monkeypatch: pytest.MonkeyPatch, text: str | None, expected: float
) -> None:
    if text is None:
        monkeypatch.delenv(NAME, raising=False)
    else:
        monkeypatch.setenv(NAME, text)
    assert _number(NAME, 5.0, least=0.0) == expected


@pytest.mark.parametrize("text", ["fast", "-1", "nan", "inf"])
def test_a_bad_knob_is_an_error_naming_it_and_its_value(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv(NAME, text)
    with pytest.raises(
        ImproperlyConfigured, match=f"{NAME} must be a number of at least 0, got '{text}'"
    ):
        _number(NAME, 5.0, least=0.0)
