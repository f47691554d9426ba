""" "Is my new version better?" with real bots: a calling station tested against its team's
active folder is found better by the sequential test, and becomes active by itself when
the team asked for that; the test's games are unrated."""

from __future__ import annotations

from django.core.management import call_command

from arena.server.ladder.models import (
    Game,
    LadderTeamSettings,
    PromotionStatus,
    PromotionTest,
    Rating,
)
from arena.server.site.models import Team
from tests.arena.server.ladder.conftest import accepted, packed, team_with


def test_a_clearly_better_version_is_accepted_and_made_active(small_ladder: None) -> None:
    team, folder = team_with("ants", "folder")
    station = accepted(team, packed("station"), active=False)
    LadderTeamSettings.objects.create(team=team, auto_activate=True)
    PromotionTest.objects.create(team=team, candidate=station, incumbent=folder)
    call_command("ladder_worker", "--once", "--games", "6")
    test = PromotionTest.objects.get()
    assert test.status == PromotionStatus.BETTER and test.activated
    assert test.game_count >= 2 and test.llr >= test.upper_bound
    assert len(test.llr_history) == test.game_count
    assert Team.objects.get(pk=team.pk).active_version == station
    games = Game.objects.all()
    assert games and all(game.kind == "version_test" and not game.is_rated for game in games)
    assert not Rating.objects.exclude(game_count=0).exists()  # the test moved no rating
