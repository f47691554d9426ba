"""API tokens have a scope (issue 31, finding 8): a "read" token reads the team's
versions but may not upload or activate (403, naming the scope); an "upload" token, the
default and what ``arena submit`` needs, does both. The tokens page makes either and
lists each token's scope."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from arena.server.site.models import ApiToken, BotVersion, TokenScope, VersionStatus
from tests.arena.server.factories import PASSWORD, bot_archive, make_team, make_token

pytestmark = pytest.mark.usefixtures("db")


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _upload(token: str) -> Any:
    return Client().post("/api/v1/versions/", data=bot_archive(),
                         content_type="application/gzip", headers=_bearer(token))  # fmt: skip


def test_a_read_token_reads_but_may_not_upload_or_activate() -> None:
    team = make_team("ants")
    reader = make_token(team)
    ApiToken.objects.update(scope=TokenScope.READ)
    writer = make_token(team)  # made after: the default scope, upload
    assert _upload(writer).status_code == 201
    refused = _upload(reader)
    assert refused.status_code == 403 and "scope 'read'" in refused.json()["error"]
    assert BotVersion.objects.count() == 1
    assert Client().get("/api/v1/versions/", headers=_bearer(reader)).status_code == 200
    version = BotVersion.objects.get()
    BotVersion.objects.filter(pk=version.pk).update(status=VersionStatus.ACCEPTED)
    path = f"/api/v1/versions/{version.pk}/activate/"
    assert Client().post(path, headers=_bearer(reader)).status_code == 403
    assert Client().post(path, headers=_bearer(writer)).status_code == 200


def test_the_tokens_page_makes_a_read_token_and_shows_its_scope() -> None:
    make_team("ants", member="ann")
    client = Client()
    assert client.login(username="ann", password=PASSWORD)
    page = client.post("/tokens/", {"name": "dashboard", "scope": "read"}).content.decode()
    shown = re.search(r'<pre id="new-token">(\S+)</pre>', page)
    assert shown is not None
    assert ApiToken.objects.get().scope == TokenScope.READ
    assert "read only" in page
    assert _upload(shown.group(1)).status_code == 403
