"""The site's upload limits in the API (``GET /api/v1/limits/``, read by ``arena submit``
before it sends) and on the upload page, and an identical upload linked to the version it
repeats instead of being stored and validated again (issue 32)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.server.competition import SITE_KEYS
from arena.server.site.models import BotVersion, SiteSettings, VersionStatus
from tests.arena.server.factories import bot_archive, make_team, make_token

pytestmark = pytest.mark.usefixtures("db")


def _upload(client: Client, data: bytes, token: str, query: str = "") -> Any:
    return client.post(
        "/api/v1/versions/" + query,
        data=data,
        content_type="application/gzip",
        headers={"Authorization": f"Bearer {token}"},
    )


def test_the_limits_are_the_sites_settings_by_their_competition_file_key() -> None:
    SiteSettings.objects.update_or_create(
        pk=1, defaults={"upload_archive_bytes": 1234, "upload_file_count": 7}
    )
    answer = Client().get("/api/v1/limits/")  # anyone may read them: no token
    assert answer.status_code == 200
    limits = answer.json()["limits"]
    # Every [upload] key, and only those, named as in the competition file.
    assert set(limits) == {key for key in SITE_KEYS if key.startswith("upload.")}
    assert limits["upload.archive_bytes"] == 1234 and limits["upload.file_count"] == 7
    assert limits["upload.unpacked_bytes"] == SITE_KEYS["upload.unpacked_bytes"].default


def test_an_identical_upload_is_linked_to_its_version_not_validated_again() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    archive = bot_archive('name = "same"\n')
    first = _upload(client, archive, token)
    assert first.status_code == 201
    BotVersion.objects.filter(pk=first.json()["id"]).update(status=VersionStatus.ACCEPTED)
    again = _upload(client, archive, token)
    assert again.status_code == 200
    body = again.json()
    assert body["identical"] is True
    assert (body["id"], body["version"], body["status"]) == (
        first.json()["id"],
        1,
        "accepted",
    )
    assert BotVersion.objects.count() == 1  # nothing stored, nothing queued
    # Another archive is a new version, as before.
    other = _upload(client, bot_archive('name = "other"\n'), token)
    assert other.status_code == 201 and other.json()["version"] == 2


def test_an_identical_upload_of_another_team_is_its_own_version() -> None:
    archive = bot_archive('name = "shared"\n')
    client = Client()
    assert _upload(client, archive, make_token(make_team("ants"))).status_code == 201
    answer = _upload(client, archive, make_token(make_team("bees")))
    assert answer.status_code == 201
    assert "identical" not in answer.json()


def test_an_identical_upload_with_activate_makes_the_accepted_version_play() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    archive = bot_archive('name = "same"\n')
    first = _upload(client, archive, token, "?activate=false")
    version = BotVersion.objects.get(pk=first.json()["id"])
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACCEPTED)
    again = _upload(client, archive, token, "?activate=true").json()
    assert again["identical"] is True and again["is_active"] is True
    team.refresh_from_db()
    assert team.active_version == version


def test_an_identical_upload_of_a_rejected_version_cannot_be_activated() -> None:
    team = make_team("ants")
    token = make_token(team)
    client = Client()
    archive = bot_archive('name = "same"\n')
    first = _upload(client, archive, token)
    BotVersion.objects.filter(pk=first.json()["id"]).update(status=VersionStatus.REJECTED)
    again = _upload(client, archive, token, "?activate=true")
    assert again.status_code == 400
    assert "not accepted" in again.json()["error"]


def test_the_upload_form_links_an_identical_archive_to_its_version() -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    team = make_team("ants")
    client = Client()
    client.force_login(team.memberships.get().user)
    archive = bot_archive('name = "same"\n')
    sent = SimpleUploadedFile("bot.tar.gz", archive, content_type="application/gzip")
    first = client.post("/upload/", {"archive": sent})
    assert first.status_code == 302
    version = BotVersion.objects.get()
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACCEPTED)
    sent = SimpleUploadedFile("bot.tar.gz", archive, content_type="application/gzip")
    again = client.post("/upload/", {"archive": sent, "activate": "on"})
    assert again.status_code == 302 and again["Location"] == f"/versions/{version.pk}/"
    assert BotVersion.objects.count() == 1
    team.refresh_from_db()
    assert team.active_version == version
    # The site's limits, as its settings hold them now, shown where one uploads.
    SiteSettings.objects.filter(pk=1).update(upload_file_count=77)
    page = client.get("/upload/").content.decode()
    assert "77 files" in page and "unpacked" in page
