"""The organiser's admin through its pages (actions on versions and matches), the site
folder's refusals, and the pages' small paths (no team yet, an unaccepted version)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from arena.server.competition import SignUp, SiteRules, Visibility
from arena.server.site.models import (
    BotVersion,
    FailureKind,
    Match,
    MatchStatus,
    SiteSettings,
    VersionStatus,
)
from arena.server.site_folder import SiteFolder
from arena.settings import UsageError
from tests.arena.server.factories import PASSWORD, make_team, make_version


@pytest.fixture
def staff() -> Client:
    User.objects.create_superuser("root", password=PASSWORD)
    client = Client()
    assert client.login(username="root", password=PASSWORD)
    return client


def _act(client: Client, model: str, action: str, pks: list[int]) -> str:
    response = client.post(
        f"/admin/arena_server/{model}/", {"action": action, "_selected_action": pks}, follow=True
    )
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.usefixtures("db")
def test_versions_are_disabled_enabled_and_validated_again(staff: Client) -> None:
    team = make_team("ants")
    version = make_version(team, status=VersionStatus.ACCEPTED)
    team.active_version = version
    team.save()
    assert "1 version(s) disabled" in _act(staff, "botversion", "disable", [version.pk])
    team.refresh_from_db()
    assert team.active_version is None and BotVersion.objects.get(pk=version.pk).is_disabled
    assert "1 version(s) enabled" in _act(staff, "botversion", "enable", [version.pk])
    assert "1 version(s) queued" in _act(staff, "botversion", "validate_again", [version.pk])
    assert BotVersion.objects.get(pk=version.pk).status == VersionStatus.QUEUED


@pytest.mark.usefixtures("db")
def test_the_admin_re_runs_a_site_failure_and_refuses_a_bots_fault(staff: Client) -> None:
    ours = Match.objects.create(
        status=MatchStatus.FAILED,
        source="l",
        external_id="1",
        failure_kind=FailureKind.INFRASTRUCTURE,
    )
    bots = Match.objects.create(
        status=MatchStatus.FAILED, source="l", external_id="2", failure_kind=FailureKind.BOT_FAULT
    )
    page = _act(staff, "match", "rerun", [ours.pk, bots.pk])
    assert "1 match(es) queued again" in page and "never a bot" in page
    assert Match.objects.get(pk=bots.pk).status == MatchStatus.FAILED


@pytest.mark.usefixtures("db")
def test_a_user_without_a_team_is_sent_to_make_one_and_only_accepted_versions_play() -> None:
    team = make_team("ants", member="ann")
    User.objects.create_user("lone", password=PASSWORD)
    lone = Client()
    lone.login(username="lone", password=PASSWORD)
    assert lone.get("/team/")["Location"] == "/team/new/"
    assert lone.get("/upload/")["Location"] == "/team/new/"
    assert lone.get("/tokens/").status_code == 404
    member = Client()
    member.login(username="ann", password=PASSWORD)
    assert member.get("/team/new/")["Location"] == "/team/"
    queued = make_version(team)
    assert member.post(f"/versions/{queued.pk}/activate/").status_code == 404
    assert Client().get("/favicon.ico").status_code == 204


@pytest.mark.parametrize(
    ("content", "message"), [(None, "is not a site folder"), ("{not json", "cannot be read")]
)
def test_a_folder_that_is_not_a_site_is_a_usage_error(
    tmp_path: Path, content: str | None, message: str
) -> None:
    if content is not None:
        (tmp_path / "site.json").write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        SiteFolder.load(tmp_path)


def _competition_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "competition.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.usefixtures("db")
def test_the_site_settings_are_reloaded_from_the_competition_file(
    staff: Client, tmp_path: Path
) -> None:
    # The copied tables change only here (or in the form): an edit of the file waits.
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "nothing"})
    text = '[site]\nvisibility = "everything"\n[validation]\nhands = 7\n'
    path = _competition_file(tmp_path, text)
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        assert SiteSettings.current().rules().visibility is Visibility.NOTHING
        page = _act(staff, "sitesettings", "reload", [1])
    assert "the competition file&#x27;s again" in page
    rules = SiteSettings.current().rules()
    assert (rules.visibility, rules.validation_hands) == (Visibility.EVERYTHING, 7)


@pytest.mark.usefixtures("db")
def test_a_reload_that_cannot_read_the_file_changes_nothing_and_says_why(
    staff: Client, tmp_path: Path
) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "nothing"})
    path = _competition_file(tmp_path, '[site]\nvisibility = "all"\n')
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        page = _act(staff, "sitesettings", "reload", [1])
    assert "Not reloaded" in page and "site.visibility = &quot;all&quot;: must be one of" in page
    with override_settings(ARENA_COMPETITION_FILE=None):
        assert "names no competition file" in _act(staff, "sitesettings", "reload", [1])
    assert SiteSettings.current().visibility == "nothing"


@pytest.mark.usefixtures("db")
def test_the_settings_form_refuses_a_value_no_rule_of_the_file_allows(staff: Client) -> None:
    row = SiteSettings.current()
    form = {**SiteRules().to_stored(), "signup": "everyone"}
    response = staff.post(f"/admin/arena_server/sitesettings/{row.pk}/change/", form)
    assert response.status_code == 200  # the form again, with the error on its field
    assert "must be one of open, invite, admin" in response.content.decode()
    assert SiteSettings.current().signup == "admin"
    form["signup"] = "open"
    assert staff.post(f"/admin/arena_server/sitesettings/{row.pk}/change/", form).status_code == 302
    assert SiteSettings.current().rules().signup is SignUp.OPEN


@pytest.mark.usefixtures("db")
def test_the_single_site_settings_row_cannot_be_added_again(staff: Client) -> None:
    # Issue 32: the admin offered "Add site settings" for a one-row table.
    SiteSettings.objects.all().delete()
    assert staff.get("/admin/arena_server/sitesettings/add/").status_code == 200
    SiteSettings.current()
    listing = staff.get("/admin/arena_server/sitesettings/").content.decode()
    assert "Add site settings" not in listing
    assert staff.get("/admin/arena_server/sitesettings/add/").status_code == 403


@pytest.mark.usefixtures("db")
def test_the_ladders_admin_lists_numbers_rounded(staff: Client) -> None:
    # Issue 32: the games list showed 391.6903409090909.
    from arena.server.ladder.models import Game, PromotionTest, TableSeat

    first = make_version(make_team("ants"), status=VersionStatus.ACCEPTED)
    second = make_version(make_team("bees"), status=VersionStatus.ACCEPTED)
    game = Game.objects.create(kind="uncertainty", first=first, second=second, seed="1",
                               deals=4, adjusted_mbb=391.6903409090909)  # fmt: skip
    TableSeat.objects.create(game=game, seat_index=0, version=first, adjusted_mbb=-12.345678,
                             raw_mbb=7.25)  # fmt: skip
    listing = staff.get("/admin/arena_ladder/game/").content.decode()
    assert ">391.7<" in listing and "391.69" not in listing
    page = staff.get(f"/admin/arena_ladder/game/{game.pk}/change/").content.decode()
    assert "-12.3" in page and "-12.34" not in page and "7.2" in page
    PromotionTest.objects.create(team=first.team, candidate=first, incumbent=first,
                                 game_count=2, llr=1.23456)  # fmt: skip
    PromotionTest.objects.create(team=first.team, candidate=first, incumbent=first,
                                 game_count=3, llr=-1e6)  # fmt: skip
    tests = staff.get("/admin/arena_ladder/promotiontest/").content.decode()
    assert ">1.23<" in tests and "1000000" not in tests and "every one with the same" in tests
