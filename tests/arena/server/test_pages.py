"""The pages: leaderboard, the match page and its hand viewer with the cards another team
may see, sign-up as the site allows, teams and tokens."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from arena.server.site.importer import read_tournament, save_tournament
from arena.server.site.models import ApiToken, Match, SiteSettings, Team
from arena.server.site.visibility import HIDDEN_CARD
from tests.arena.report.runs import write_tournament
from tests.arena.server.factories import PASSWORD, make_team

pytestmark = pytest.mark.usefixtures("db")


def _viewer_hands(page: str) -> list[dict[str, Any]]:
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert found is not None
    hands: list[dict[str, Any]] = json.loads(found.group(1))["hands"]
    return hands


@pytest.fixture
def imported(tmp_path: Path) -> Match:
    folder = write_tournament(tmp_path / "run", bots=("ann", "bob"), deals=2, block_deals=2)
    make_team("ann", member="ann-1")
    make_team("bob", member="bob-1")
    make_team("cat", member="cat-1")
    save_tournament(read_tournament(folder))
    match = Match.objects.first()
    assert match is not None
    return match


def _cards(client: Client, match: Match) -> list[list[list[str]]]:
    response = client.get(f"/matches/{match.pk}/hands/")
    assert response.status_code == 200
    assert "sha256-" in response["Content-Security-Policy"]
    return [hand["cards"] for hand in _viewer_hands(response.content.decode())]


@pytest.mark.parametrize("visibility", ["showdowns", "everything"])
def test_a_team_sees_its_own_cards_and_others_as_the_site_says(
    imported: Match, visibility: str
) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": visibility})
    seat_of_ann = imported.seats.get(name="ann").seat_index
    client = Client()
    client.login(username="ann-1", password=PASSWORD)
    own = _cards(client, imported)
    assert own and all(HIDDEN_CARD not in hand[seat_of_ann] for hand in own)
    outsider = Client()
    outsider.login(username="cat-1", password=PASSWORD)
    seen = _cards(outsider, imported)
    hidden = sum(HIDDEN_CARD in cards for hand in seen for cards in hand)
    if visibility == "everything":
        assert hidden == 0
    else:
        shown_at_showdown = sum(HIDDEN_CARD not in cards for hand in seen for cards in hand)
        assert hidden > 0 and hidden + shown_at_showdown == 2 * len(seen)


def test_nothing_hides_other_teams_matches(imported: Match) -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "nothing"})
    outsider, player = Client(), Client()
    outsider.login(username="cat-1", password=PASSWORD)
    player.login(username="bob-1", password=PASSWORD)
    assert outsider.get(f"/matches/{imported.pk}/").status_code == 404
    assert player.get(f"/matches/{imported.pk}/").status_code == 200


def test_the_leaderboard_shows_the_imported_standings(imported: Match) -> None:
    page = Client().get("/").content.decode()
    assert "ann" in page and "bob" in page and "Leaderboard" in page


def test_sign_up_follows_the_site_setting() -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"signup": "admin"})
    assert Client().get("/signup/").status_code == 403
    SiteSettings.objects.update_or_create(
        pk=1, defaults={"signup": "invite", "invite_code": "blue-42"}
    )
    form = {"username": "dan", "password1": PASSWORD, "password2": PASSWORD}
    assert Client().post("/signup/", {**form, "invite_code": "red"}).status_code == 200
    response = Client().post("/signup/", {**form, "invite_code": "blue-42"})
    assert response.status_code == 302 and response["Location"] == "/team/new/"


def test_a_team_is_made_and_joined_with_its_code() -> None:
    SiteSettings.objects.update_or_create(pk=1, defaults={"signup": "open"})
    first, second = Client(), Client()
    for client, name in ((first, "dan"), (second, "eve")):
        form = {"username": name, "password1": PASSWORD, "password2": PASSWORD}
        assert client.post("/signup/", form).status_code == 302
    assert first.post("/team/new/", {"name": "Dragons"}).status_code == 302
    team = Team.objects.get(name="Dragons")
    assert second.post("/team/join/", {"code": "wrong"}).status_code == 400
    assert second.post("/team/join/", {"code": team.join_code}).status_code == 302
    assert sorted(team.memberships.values_list("user__username", flat=True)) == ["dan", "eve"]


def test_a_token_is_shown_once_and_kept_hashed() -> None:
    make_team("ants", member="ann")
    client = Client()
    client.login(username="ann", password=PASSWORD)
    page = client.post("/tokens/", {"name": "laptop"}).content.decode()
    shown = re.search(r'<pre id="new-token">(arena_[\w-]+)</pre>', page)
    assert shown is not None
    token = shown.group(1)
    row = ApiToken.objects.get(name="laptop")
    assert token not in (row.digest, row.prefix) and row.prefix == token[:12]
    assert token not in client.get("/tokens/").content.decode()
    response = client.get("/api/v1/versions/", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    client.post(f"/tokens/{row.pk}/revoke/")
    revoked = Client().get("/api/v1/versions/", headers={"Authorization": f"Bearer {token}"})
    assert revoked.status_code == 401


def test_a_version_page_shows_its_results_per_opponent() -> None:
    from arena.server.site.matches import version_results
    from arena.server.site.models import MatchSeat, MatchStatus, VersionStatus
    from tests.arena.server.factories import make_version

    ants = make_team("ants", member="ann")
    version = make_version(ants, status=VersionStatus.ACCEPTED)
    for number, (won, adjusted) in enumerate(((30, 12.5), (-10, None)), start=1):
        match = Match.objects.create(
            status=MatchStatus.FINISHED, source="ladder", external_id=str(number), hands_played=100
        )
        MatchSeat.objects.create(
            match=match,
            seat_index=0,
            name="ants",
            team=ants,
            version=version,
            chips_won=won,
            adjusted_chips=adjusted,
        )
        MatchSeat.objects.create(match=match, seat_index=1, name="house", chips_won=-won)
    assert version_results(version) == [
        {"opponent": "house", "matches": 2, "hands": 200, "chips_won": 20, "adjusted": None}
    ]
    client = Client()
    client.login(username="ann", password=PASSWORD)
    page = client.get(f"/versions/{version.pk}/").content.decode()
    assert 'id="results"' in page and "<td>house</td><td>2</td><td>200</td>" in page


def test_a_version_page_shows_how_long_each_finished_step_took() -> None:
    from arena.server.site.models import ValidationStep, VersionStatus
    from tests.arena.server.factories import make_version

    ants = make_team("ants", member="ann")
    version = make_version(ants, status=VersionStatus.ACCEPTED)
    for position, (step, status, took) in enumerate(
        (("build", "passed", 12.34), ("protocol_check", "running", 0.0))
    ):
        ValidationStep.objects.create(
            version=version, position=position, step=step, status=status, duration_s=took
        )
    client = Client()
    client.login(username="ann", password=PASSWORD)
    page = client.get(f"/versions/{version.pk}/").content.decode()
    assert '<strong>build</strong>: passed in <span class="duration">12.3 s</span>' in page
    # A step still running has no duration yet: none is shown.
    assert "<strong>protocol_check</strong>: running\n" in page


def test_the_hand_viewer_is_the_sites_and_shows_the_match_pages_faults(imported: Match) -> None:
    # Issue 32: the viewer said "No faults" on a match whose page shows faults 2, and the
    # offline report's text (its leaderboard, how to write another report).
    seat = imported.seats.get(name="bob")
    seat.fault_count = 2
    seat.save()
    client = Client()
    client.login(username="ann-1", password=PASSWORD)
    assert "<td>2</td>" in client.get(f"/matches/{imported.pk}/").content.decode()
    page = client.get(f"/matches/{imported.pk}/hands/").content.decode()
    assert f"<title>match {imported.pk} · Poker arena</title>" in page  # the site's title
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert found is not None
    document = json.loads(found.group(1))
    assert document["on_site"] is True
    assert document["faults"] == [{"bot": "bob", "kind": "any", "count": 2, "example": None}]
    assert document["hands_total"] == imported.hands_played
