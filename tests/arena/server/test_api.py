"""The JSON API ``arena submit`` uses: upload with a bearer token (201), the version with
its steps, errors as ``{"error"}`` with a 4xx status."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.server.site.models import BotVersion, SiteSettings, VersionStatus
from arena.server.site.views.api import version_data
from arena.server.validation.queue import claim_next, finish
from arena.server.validation.report import StepReport, StepStatus, Verdict
from tests.arena.server.factories import bot_archive, make_team, make_token

pytestmark = pytest.mark.usefixtures("db")


def _post(client: Client, data: bytes, token: str | None) -> object:
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    return client.post(
        "/api/v1/versions/", data=data, content_type="application/gzip", headers=headers
    )


def test_an_upload_is_a_queued_version_and_its_status_has_the_steps() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    response = client.post(
        "/api/v1/versions/",
        data=bot_archive(),
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201
    body = response.json()
    # The answer says what plays now (issue 32: an accepted upload did not play, silently).
    assert set(body) >= {"id", "version", "status", "url", "is_active", "plays_now"}
    assert (body["version"], body["status"]) == (1, "queued")
    assert body["plays_now"] == "no version plays yet; version 1 will play once accepted"
    assert body["url"].endswith(f"/api/v1/versions/{body['id']}/")
    version = claim_next("w")
    assert version is not None
    steps = (
        StepReport("building", StepStatus.PASSED, "built"),
        StepReport("protocol_check", StepStatus.FAILED, "no hello", "flush"),
    )
    finish(version, "w", Verdict(False, "no reply to hello", "flush stdout", steps))
    status = client.get(
        f"/api/v1/versions/{body['id']}/", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert status["status"] == "rejected" and status["reason"] == "no reply to hello"
    assert status["hint"] == "flush stdout"
    assert status["steps"] == [
        {"step": "building", "status": "passed", "message": "built", "hint": ""},
        {"step": "protocol_check", "status": "failed", "message": "no hello", "hint": "flush"},
    ]
    second = client.post(
        "/api/v1/versions/",
        data=bot_archive(),
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert second.json()["version"] == 2


def test_a_refused_archive_is_a_json_error_naming_the_rule() -> None:
    token = make_token(make_team("ants"))
    response = Client().post(
        "/api/v1/versions/",
        data=b"not an archive",
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 400
    assert set(response.json()) == {"error"} and response.json()["error"]
    assert not BotVersion.objects.exists()


def test_an_archive_over_the_sites_limit_is_413() -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"upload_archive_bytes": 100})
    token = make_token(make_team("ants"))
    response = Client().post(
        "/api/v1/versions/",
        data=bot_archive() + b"x" * 200,
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 413 and "100 bytes" in response.json()["error"]


@pytest.mark.parametrize("token", [None, "arena_unknown", "Basic abc"])
def test_an_upload_needs_a_valid_bearer_token(token: str | None) -> None:
    make_team("ants")
    headers = (
        {} if token is None else {"Authorization": token if " " in token else f"Bearer {token}"}
    )
    response = Client().post(
        "/api/v1/versions/", data=bot_archive(), content_type="application/gzip", headers=headers
    )
    assert response.status_code == 401 and "error" in response.json()


def test_a_logged_in_browser_cannot_upload_through_the_api_without_a_token() -> None:
    make_team("ants", member="ann")
    client = Client()
    assert client.login(username="ann", password="a long enough password")
    response = client.post("/api/v1/versions/", data=bot_archive(), content_type="application/gzip")
    assert response.status_code == 401


def test_the_leaderboard_and_team_list_are_json() -> None:
    make_team("ants")
    client = Client()
    assert client.get("/api/v1/leaderboard/").json() == {"boards": {}}
    assert [team["name"] for team in client.get("/api/v1/teams/").json()["teams"]] == ["ants"]


def test_an_accepted_version_can_be_made_active_a_rejected_one_cannot() -> None:
    team = make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password="a long enough password")
    client.post("/upload/", {"archive": _file(bot_archive())})
    client.post("/upload/", {"archive": _file(bot_archive())})
    first, second = BotVersion.objects.order_by("number")
    BotVersion.objects.filter(pk=first.pk).update(status=VersionStatus.ACCEPTED)
    BotVersion.objects.filter(pk=second.pk).update(status=VersionStatus.REJECTED)
    assert client.post(f"/versions/{first.pk}/activate/").status_code == 302
    assert client.post(f"/versions/{second.pk}/activate/").status_code == 404
    team.refresh_from_db()
    assert team.active_version_id == first.pk


def _file(data: bytes) -> object:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("bot.tar.gz", data, content_type="application/gzip")


def test_the_form_refuses_an_archive_over_the_limit_before_reading_it() -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"upload_archive_bytes": 100})
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password="a long enough password")
    response = client.post("/upload/", {"archive": _file(bot_archive() + b"x" * 200)})
    assert response.status_code == 400 and "limit of 100 bytes" in response.content.decode()
    assert not BotVersion.objects.exists()


def test_a_teams_json_shows_its_versions_to_its_own_only() -> None:
    ants, bees = make_team("ants"), make_team("bees")
    token = make_token(ants)
    client = Client()
    client.post("/api/v1/versions/", data=bot_archive(), content_type="application/gzip",
                headers={"Authorization": f"Bearer {token}"})  # fmt: skip
    own = client.get(f"/api/v1/teams/{ants.pk}/", headers={"Authorization": f"Bearer {token}"})
    assert own.json()["name"] == "ants" and [v["version"] for v in own.json()["versions"]] == [1]
    other = client.get(f"/api/v1/teams/{ants.pk}/",
                       headers={"Authorization": f"Bearer {make_token(bees)}"})  # fmt: skip
    assert other.status_code == 200 and "versions" not in other.json()
    assert client.get("/api/v1/teams/999/").status_code == 404


class _Unread:
    """A request body that fails the test if anything reads it."""

    def read(self, *_args: object) -> bytes:
        raise AssertionError("the body was read")

    readline = read


@pytest.mark.parametrize("token", [None, "arena_unknown"])
def test_the_api_checks_the_token_and_the_length_before_reading_the_body(
    token: str | None,
) -> None:
    # waitress holds a body to the upload limit (arena.server.serve); the application
    # reads none of it for a caller without a valid token, nor past the limit.
    headers = {} if token is None else {"Authorization": f"Bearer {token}"}
    big: dict[str, Any] = {"CONTENT_LENGTH": str(64 * 1024 * 1024), "wsgi.input": _Unread()}
    response = Client().generic("POST", "/api/v1/versions/", headers=headers, **big)
    assert response.status_code == 401
    valid = {"Authorization": f"Bearer {make_token(make_team('ants'))}"}
    response = Client().generic("POST", "/api/v1/versions/", headers=valid, **big)
    assert response.status_code == 413


def _accept_next() -> BotVersion:
    version = claim_next("w")
    assert version is not None
    assert finish(version, "w", Verdict(is_accepted=True, reason="", hint="", steps=()))
    return version


def _upload(client: Client, token: str, query: str = "") -> dict[str, Any]:
    response = client.post(
        f"/api/v1/versions/{query}",
        data=bot_archive(),
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201, response.content
    body: dict[str, Any] = response.json()
    return body


def test_a_teams_first_accepted_version_plays_by_itself_a_later_one_does_not() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    _upload(client, token)
    first = _accept_next()
    team.refresh_from_db()
    assert team.active_version_id == first.pk
    _upload(client, token)
    second = _accept_next()
    team.refresh_from_db()
    assert team.active_version_id == first.pk  # a later version waits for the team's word
    answer = client.get(
        f"/api/v1/versions/{second.pk}/", headers={"Authorization": f"Bearer {token}"}
    ).json()
    assert (answer["is_active"], answer["active_version"]) == (False, 1)
    assert answer["plays_now"] == "version 1 plays now; activate version 2 to play with it"


def test_an_upload_asking_to_activate_plays_once_accepted_and_false_never_by_itself() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    refused = _upload(client, token, "?activate=false")
    assert refused["plays_now"] == (
        "no version plays yet; version 1 will not play by itself once accepted"
    )
    _accept_next()
    team.refresh_from_db()
    assert team.active_version is None
    wanted = _upload(client, token, "?activate=true")
    assert wanted["activate_when_accepted"] is True
    second = _accept_next()
    team.refresh_from_db()
    assert team.active_version_id == second.pk


def test_an_upload_with_an_unknown_activate_value_is_refused_naming_it() -> None:
    token = make_token(make_team("ants"))
    response = Client().post(
        "/api/v1/versions/?activate=yes",
        data=bot_archive(),
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 400 and "'yes'" in response.json()["error"]
    assert not BotVersion.objects.exists()


def test_the_api_activates_an_accepted_version_now_and_a_waiting_one_once_accepted() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    auth = {"Authorization": f"Bearer {token}"}
    _upload(client, token)
    first = _accept_next()
    _upload(client, token)
    second = _accept_next()
    answer = client.post(f"/api/v1/versions/{second.pk}/activate/", headers=auth)
    assert answer.status_code == 200
    assert answer.json()["plays_now"] == "version 2 plays on the ladder now"
    third = _upload(client, token)
    waiting = client.post(f"/api/v1/versions/{third['id']}/activate/", headers=auth).json()
    assert waiting["plays_now"] == "version 2 plays now; version 3 will play once accepted"
    _accept_next()
    team.refresh_from_db()
    assert team.active_version_id == third["id"]
    assert client.post(f"/api/v1/versions/{first.pk}/activate/", headers=auth).status_code == 200


def test_the_api_refuses_to_activate_a_rejected_version_or_another_teams() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    created = _upload(client, token)
    BotVersion.objects.filter(pk=created["id"]).update(status=VersionStatus.REJECTED)
    url = f"/api/v1/versions/{created['id']}/activate/"
    refused = client.post(url, headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 400 and "not accepted" in refused.json()["error"]
    # Another team's version is 404, as a missing one (to a visitor and an unknown token).
    assert client.post(url).status_code == 404
    assert client.post(url, headers={"Authorization": "Bearer arena_unknown"}).status_code == 404
    other = make_token(make_team("bees"))
    assert client.post(url, headers={"Authorization": f"Bearer {other}"}).status_code == 404


def test_a_browsers_session_cannot_activate_through_the_api() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password="a long enough password")
    client.post("/upload/", {"archive": _file(bot_archive())})
    version = BotVersion.objects.get()
    response = client.post(f"/api/v1/versions/{version.pk}/activate/")
    assert response.status_code == 400 and "Bearer" in response.json()["error"]
    assert version.activate_when_accepted is None


def test_the_version_page_says_what_plays_now() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password="a long enough password")
    client.post("/upload/", {"archive": _file(bot_archive())})
    version = _accept_next()
    page = client.get(f"/versions/{version.pk}/").content.decode()
    assert "Plays now: Version 1 plays on the ladder now." in page


def test_no_version_plays_by_itself_after_the_deadline_or_when_disabled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    _upload(client, token)
    version = claim_next("w")
    assert version is not None
    # The organiser disables it while it is validated: it is accepted, but cannot play.
    BotVersion.objects.filter(pk=version.pk).update(is_disabled=True)
    assert finish(version, "w", Verdict(is_accepted=True, reason="", hint="", steps=()))
    team.refresh_from_db()
    assert team.active_version is None
    version.refresh_from_db()
    assert version_data(version)["plays_now"] == "no version plays yet; version 1 cannot play"
    _upload(client, token)
    # The finals play the versions active at the deadline: a verdict after it changes none.
    monkeypatch.setattr("arena.server.site.versions.is_frozen_now", lambda: True)
    _accept_next()
    team.refresh_from_db()
    assert team.active_version is None


def test_the_upload_form_shows_the_limits_and_may_ask_to_play_once_accepted() -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"upload_file_count": 17})
    team = make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password="a long enough password")
    page = client.get("/upload/").content.decode()
    assert "17 files" in page and "the first one accepted plays by itself" in page
    client.post("/upload/", {"archive": _file(bot_archive())})
    _accept_next()
    assert "Version 1 plays now" in client.get("/upload/").content.decode()
    client.post("/upload/", {"archive": _file(bot_archive()), "activate": "on"})
    second = _accept_next()
    team.refresh_from_db()
    assert team.active_version_id == second.pk
