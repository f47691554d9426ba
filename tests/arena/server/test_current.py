"""The site's competition as its file says now: parsed again only once the file has
changed (its stamp: path, modification time, size, inode), a live key taking effect
without a restart, and no competition, no deadline, when the site names no file or the
file cannot be read."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from django.test import override_settings

from arena.server.competition import read_when_changed
from arena.server.current import competition_deadline, current_competition, is_frozen_now
from arena.server.models import Team, VersionStatus
from arena.server.versions import UploadRefused, activate
from arena.settings import SettingsError
from tests.arena.server.factories import make_team, make_version


def _write(path: Path, text: str, *, age_s: float = 60.0) -> Path:
    """``text`` at ``path``, last modified ``age_s`` seconds ago (settled: see
    :data:`arena.server.competition.SETTLED_S`)."""
    path.write_text(text, encoding="utf-8")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_the_file_is_parsed_again_after_an_edit_and_not_before(tmp_path: Path) -> None:
    path = _write(tmp_path / "competition.toml", "deals = 10\n")
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        first = current_competition()
        assert first is not None and first.config.deals == 10
        assert current_competition() is first  # unchanged: the same reading, not parsed again
        _write(path, "deals = 200\n", age_s=30.0)
        second = current_competition()
        assert second is not None and second is not first and second.config.deals == 200
        assert current_competition() is second


def test_a_file_saved_by_renaming_a_new_one_over_it_is_read_again(tmp_path: Path) -> None:
    # An editor's atomic save: the same size and modification time, another inode.
    path = _write(tmp_path / "competition.toml", "deals = 10\n")
    assert read_when_changed(path).config.deals == 10
    new = _write(tmp_path / "new.toml", "deals = 20\n")
    os.utime(new, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    os.replace(new, path)
    assert read_when_changed(path).config.deals == 20


def test_a_file_written_within_the_clocks_tick_is_parsed_at_every_read(tmp_path: Path) -> None:
    # Two writes within one tick of the file system's clock can leave the same stamp: a
    # file whose time is not yet settled (here, in the future) is never taken as read.
    path = tmp_path / "competition.toml"
    path.write_text("deals = 10\n", encoding="utf-8")
    soon = time.time() + 3600.0
    os.utime(path, (soon, soon))
    assert read_when_changed(path) is not read_when_changed(path)


def test_another_path_is_another_file(tmp_path: Path) -> None:
    first = _write(tmp_path / "a.toml", "deals = 10\n")
    second = _write(tmp_path / "b.toml", "deals = 10\n")
    os.utime(second, ns=(first.stat().st_atime_ns, first.stat().st_mtime_ns))
    assert read_when_changed(first) is not read_when_changed(second)


def test_without_a_file_there_is_no_competition_and_no_deadline() -> None:
    with override_settings(ARENA_COMPETITION_FILE=None):
        assert current_competition() is None
        assert competition_deadline() is None and not is_frozen_now()


def test_a_file_that_cannot_be_read_raises_each_time_and_freezes_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path / "competition.toml", '[site]\nsignup = "everyone"\n')
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        for _attempt in range(2):
            with pytest.raises(SettingsError, match=r"site\.signup"):
                current_competition()
        assert competition_deadline() is None and not is_frozen_now()
    with override_settings(ARENA_COMPETITION_FILE=str(tmp_path / "gone.toml")):
        with pytest.raises(FileNotFoundError):
            current_competition()
        assert competition_deadline() is None


@pytest.mark.usefixtures("db")
def test_an_edited_deadline_freezes_activations_without_a_restart(tmp_path: Path) -> None:
    # ladder.deadline is live: the next activation reads the file as it is now.
    team = make_team("ants")
    version = make_version(team, status=VersionStatus.ACCEPTED)
    path = _write(tmp_path / "competition.toml", "[ladder]\ndeadline = 2999-01-01T00:00:00Z\n")
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        activate(team, version)
        assert Team.objects.get(pk=team.pk).active_version_id == version.pk
        _write(path, "[ladder]\ndeadline = 2020-01-01T00:00:00Z\n", age_s=30.0)
        assert is_frozen_now()
        with pytest.raises(UploadRefused, match="the deadline has passed"):
            activate(team, version)
