"""The site's WSGI application as served (arena.server.wsgi: Django behind the answers any
reader may share, arena.server.site.shared_answers): a page kept for the readers without
a team is never given to a team, a logged-in user or a reader holding their own copy."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from wsgiref.util import setup_testing_defaults

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client

from arena.server.ladder.fitting import refresh_ratings
from arena.server.ladder.models import Game, GameStatus
from arena.server.site.models import BotVersion
from arena.server.site.shared_answers import SharedAnswers
from tests.arena.server.factories import PASSWORD, make_team, make_token
from tests.arena.server.ladder.conftest import accepted


@pytest.fixture
def two(small_ladder: None) -> dict[str, BotVersion]:
    """Two teams' active versions with a few games played and a fit."""
    versions = {name: accepted(make_team(name), b"x" + name.encode()) for name in ("ants", "bees")}
    for adjusted in (300.0, 250.0, 280.0):
        Game.objects.create(first=versions["ants"], second=versions["bees"], kind="uncertainty",
                            seed="7", deals=4, status=GameStatus.DONE, hand_count=8,
                            adjusted_mbb=adjusted, raw_mbb=adjusted)  # fmt: skip
    refresh_ratings()
    return versions


@pytest.fixture
def served() -> Iterator[SharedAnswers]:
    """The application as :mod:`arena.server.wsgi` makes it, called in the test's own
    transaction (as the test client does: no connection closed between requests)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield SharedAnswers(WSGIHandler())
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _get(application: SharedAnswers, path: str, **headers: str) -> tuple[str, dict[str, str], str]:
    environ: dict[str, Any] = {"PATH_INFO": path, "HTTP_HOST": "testserver"}
    environ.update({f"HTTP_{name.upper()}": value for name, value in headers.items()})
    setup_testing_defaults(environ)
    seen: list[Any] = []
    body = b"".join(application(environ, lambda *answer: seen.extend(answer[:2])))
    return seen[0], dict(seen[1]), body.decode()


def test_a_team_never_gets_the_shared_answer_nor_the_public_its_own(
    served: SharedAnswers, two: dict[str, BotVersion]
) -> None:
    public = _get(served, "/api/v1/ladder/")
    assert public[1]["Cache-Control"] == "public, no-cache" and len(served) == 1
    for name, version in two.items():
        token = make_token(version.team)
        for _ in range(2):  # the second time with the public answer kept
            _, headers, body = _get(served, "/api/v1/ladder/", Authorization=f"Bearer {token}")
            mine = [row["bot"] for row in json.loads(body)["ratings"] if row["is_mine"]]
            assert mine == [f"{name}-v1"] and headers["Cache-Control"] == "private, no-cache"
    again = _get(served, "/api/v1/ladder/")
    assert again == public and not any(row["is_mine"] for row in json.loads(again[2])["ratings"])
    assert len(served) == 1  # a team's answer was never kept


def test_a_logged_in_user_gets_their_own_page_and_the_public_never_theirs(
    served: SharedAnswers, two: dict[str, BotVersion]
) -> None:
    anonymous = _get(served, "/ladder/")
    client = Client()
    assert client.login(username="ants-1", password=PASSWORD)
    cookie = f"sessionid={client.cookies['sessionid'].value}"
    for _ in range(2):
        page = _get(served, "/ladder/", Cookie=cookie)[2]
        assert "Log out ants-1" in page
        assert re.findall(r"<mark><a [^>]*>([^<]*)</a></mark>", page) == ["ants-v1"]
    assert _get(served, "/ladder/") == anonymous and "Log out" not in anonymous[2]


def test_a_reader_with_a_current_copy_gets_304_from_django(
    served: SharedAnswers, two: dict[str, BotVersion]
) -> None:
    status, headers, _ = _get(served, "/")
    assert status.startswith("200") and len(served) == 1
    assert _get(served, "/", If_None_Match=headers["ETag"])[0].startswith("304")
    assert _get(served, "/")[0].startswith("200")  # the kept answer is still the whole page
