"""The public finals report always matches the site's visibility in force: an
administrator who changes ``site.visibility`` after the finals changes what a visitor
reads of them at once (issue 31: it was drawn once, at the finals, and kept)."""

from __future__ import annotations

from pathlib import Path

from django.core.management import call_command
from django.test import Client, override_settings

from arena.server.competition import Visibility
from arena.server.ladder.finals import public_report_path
from arena.server.ladder.models import FinalsRun
from arena.server.site.models import SiteSettings
from tests.arena.server.ladder.conftest import team_with
from tests.arena.server.ladder.test_finals import _competition


def _hands_shown(page: str) -> bool:
    return '"hands":[]' not in page.replace(" ", "")


def test_the_public_report_is_drawn_again_when_the_visibility_changes(
    small_ladder: None, tmp_path: Path
) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    with override_settings(
        ARENA_COMPETITION_FILE=str(_competition(tmp_path, "2020-01-01T00:00:00Z"))
    ):
        call_command("ladder_finals")
    report = Path(FinalsRun.objects.get().report_file)
    assert SiteSettings.current().visibility == Visibility.SHOWDOWNS
    assert _hands_shown(Client().get("/ladder/finals/report/").content.decode())
    # The administrator hides every match from other teams and visitors: the finals too.
    SiteSettings.objects.filter(pk=1).update(visibility=Visibility.NOTHING)
    hidden = Client().get("/ladder/finals/report/")
    assert hidden.status_code == 200 and not _hands_shown(hidden.content.decode())
    assert public_report_path(report, Visibility.NOTHING).is_file()
    # And back: the showdowns' copy again, never a stale one.
    SiteSettings.objects.filter(pk=1).update(visibility=Visibility.SHOWDOWNS)
    assert _hands_shown(Client().get("/ladder/finals/report/").content.decode())
    # A run folder gone (the organiser cleaned up) is a 404, not a crash.
    public_report_path(report, Visibility.EVERYTHING).unlink(missing_ok=True)
    import shutil

    shutil.rmtree(report.parent / "finals")
    SiteSettings.objects.filter(pk=1).update(visibility=Visibility.EVERYTHING)
    assert Client().get("/ladder/finals/report/").status_code == 404
