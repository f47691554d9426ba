"""The ladder's tests: teams whose active versions are real bots (packed sample bots),
the ladder's settings made small (few deals, short tests)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings

from arena.server.site.models import BotVersion, Team, VersionStatus
from arena.uploads import pack
from tests import REPO_ROOT
from tests.arena.server.factories import make_team, make_version

#: Bots by a short name: their folders.
BOTS = {
    "station": REPO_ROOT / "sample_bots" / "python_calling_station",
    "random": REPO_ROOT / "sample_bots" / "python_random",
    "strength": REPO_ROOT / "sample_bots" / "python_hand_strength",
    "folder": REPO_ROOT / "tests" / "bots" / "folder",
}

#: Few deals, a promotion test that decides after two games.
SMALL = {"deals": 4, "promotion_min_games": 2, "placement_games": 1}


@pytest.fixture(autouse=True)
def _one_ladder_pool_worker(one_pool_worker: None) -> None:
    """Every test here plays on one pool worker (tests/conftest.py's
    :func:`~tests.conftest.one_pool_worker`): a test plays one game or a few. The live
    sites' ladder workers (``test_kill``, the browser journey) still play one per core."""


@pytest.fixture
def small_ladder(db: None) -> Iterator[None]:
    """The ladder's settings for the tests."""
    with override_settings(ARENA_LADDER=SMALL):
        yield


def packed(bot: str) -> bytes:
    """A bot folder packed as a team would upload it."""
    return pack(BOTS[bot])


def not_starting_bot(tmp_path: Path) -> bytes:
    """A bot that exits before saying ready."""
    folder = tmp_path / "dud"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "dud"\ncommand = ["{python}", "-c", "import sys; sys.exit(3)"]\n',
        encoding="utf-8",
    )
    return pack(folder)


def accepted(team: Team, data: bytes, *, active: bool = True) -> BotVersion:
    """``team``'s next version, accepted (and made active)."""
    version = make_version(team, status=VersionStatus.ACCEPTED, data=data)
    if active:
        Team.objects.filter(pk=team.pk).update(active_version=version)
    return version


def team_with(name: str, bot: str) -> tuple[Team, BotVersion]:
    """A team whose active version is ``bot``."""
    team = make_team(name)
    return team, accepted(team, packed(bot))
