"""The workers' knobs from the environment (``arena/server/settings.py``): a number of at
least its least value, the default when unset or empty, and a clear error naming the
variable and the value otherwise. And the bounds of a back-off, and a progress count
that a file vanishing meanwhile does not break."""

from __future__ import annotations

import os
from pathlib import Path

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


def test_a_back_off_that_would_never_wait_or_shrink_is_refused() -> None:
    from arena.server.jobs.backoff import Backoff

    with pytest.raises(ValueError, match=r"got first=0, most=60"):
        Backoff(first=0, most=60)
    with pytest.raises(ValueError, match=r"got first=5\.0, most=1\.0"):
        Backoff(first=5.0, most=1.0)


def test_a_file_gone_while_the_progress_is_counted_counts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arena.server.jobs import progress

    (tmp_path / "kept").write_bytes(b"1234")
    (tmp_path / "gone").write_bytes(b"12")
    real = os.lstat

    def vanishing(path: str) -> os.stat_result:
        if path.endswith("gone"):
            raise FileNotFoundError(path)  # a build's scratch folder renamed meanwhile
        return real(path)

    monkeypatch.setattr(os, "lstat", vanishing)
    assert progress.files_written(tmp_path) == (1, 4)
