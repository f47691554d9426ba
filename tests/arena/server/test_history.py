"""A team's and a version's match history, as a page and in the API: each row's opponent,
result (raw and luck-adjusted, each named), date, faults and viewer link; the filters
(opponent, result, with faults) and paging; scope (a version's history is its team's
only; under visibility ``nothing`` a team's history shows a visitor nothing); a row never
carries a failure text, a hand file's path or a seed."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from arena.server.site.history import PAGE_SIZE, HistoryFilter, HistoryQueryError
from arena.server.site.models import (
    BotVersion,
    Match,
    MatchSeat,
    MatchStatus,
    SiteSettings,
    Team,
    VersionStatus,
)
from tests.arena.server.factories import PASSWORD, make_team, make_token, make_version

pytestmark = pytest.mark.usefixtures("db")

#: A bot's stderr as a start-up failure's text quotes it: never in a history row.
SECRET_STDERR = "SECRET-STDERR-LINE"


def _match(
    number: int,
    ours: BotVersion,
    theirs: BotVersion,
    *,
    chips: int,
    faults: int = 0,
    hands_file: str = "",
) -> Match:
    """A ladder match ``number`` minutes old: ``ours`` in seat 0 won ``chips`` from
    ``theirs`` (luck-adjusted: half of it)."""
    match = Match.objects.create(
        status=MatchStatus.FINISHED,
        source="ladder",
        external_id=f"m{number}",
        hands_file=hands_file,
        hands_played=10,
        failure_message=f"its stderr ends with: {SECRET_STDERR}",
    )
    Match.objects.filter(pk=match.pk).update(
        finished=timezone.now() - timedelta(minutes=number),
        created=timezone.now() - timedelta(minutes=number),
    )
    for seat, version, won, count in ((0, ours, chips, faults), (1, theirs, -chips, 0)):
        MatchSeat.objects.create(
            match=match,
            seat_index=seat,
            name=f"{version.team.name}-v{version.number}",
            version=version,
            team=version.team,
            chips_won=won,
            adjusted_chips=won / 2,
            fault_count=count,
        )
    return match


@pytest.fixture
def league(tmp_path: Path) -> dict[str, Any]:
    """ants-v1 played bees-v1 three times (won 40, lost 30 with 2 faults, even) and
    cats-v1 once (won 5, with a hand file)."""
    ants, bees, cats = make_team("ants"), make_team("bees"), make_team("cats")
    versions = {
        team.name: make_version(team, status=VersionStatus.ACCEPTED) for team in (ants, bees, cats)
    }
    hands = tmp_path / "secret-folder" / "hands.jsonl"
    matches = [
        _match(1, versions["ants"], versions["bees"], chips=40),
        _match(2, versions["ants"], versions["bees"], chips=-30, faults=2),
        _match(3, versions["ants"], versions["bees"], chips=0),
        _match(4, versions["ants"], versions["cats"], chips=5, hands_file=str(hands)),
    ]
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "showdowns"})
    return {"teams": (ants, bees, cats), "versions": versions, "matches": matches}


def _client(team: Team) -> Client:
    client = Client()
    assert client.login(username=f"{team.name}-1", password=PASSWORD)
    return client


def _api(url: str, team: Team) -> Any:
    return Client().get(url, headers={"Authorization": f"Bearer {make_token(team)}"})


def test_a_version_history_row_has_opponent_both_results_date_faults_and_viewer(
    league: dict[str, Any],
) -> None:
    ants = league["teams"][0]
    version = league["versions"]["ants"]
    body = _api(f"/api/v1/versions/{version.pk}/matches/", ants).json()
    assert body["count"] == 4 and body["page"] == 1 and body["pages"] == 1
    newest = body["matches"][0]
    assert newest["match"] == league["matches"][0].pk  # newest first
    assert newest["opponents"] == ["bees-v1"] and newest["result"] == "won"
    assert (newest["raw_chips"], newest["adjusted_chips"]) == (40, 20.0)
    assert newest["date"] and newest["faults"] == 0 and newest["viewer_url"] is None
    # Each number's kind is named beside it.
    assert body["units"] == {"raw_chips": "chips won (raw)",
                             "adjusted_chips": "chips won (luck-adjusted)"}  # fmt: skip
    with_hands = body["matches"][3]
    assert with_hands["viewer_url"] == f"/matches/{league['matches'][3].pk}/hands/"
    page = _client(ants).get(f"/versions/{version.pk}/matches/").content.decode()
    assert "chips won (raw)" in page and "chips won (luck-adjusted)" in page
    assert "bees-v1" in page and f'href="/matches/{league["matches"][3].pk}/hands/"' in page


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("result=won", [40, 5]),
        ("result=lost", [-30]),
        ("result=even", [0]),
        ("faults=1", [-30]),
        ("opponent=cats-v1", [5]),
        ("opponent=bees", [40, -30, 0]),  # a team's name finds its versions
        ("opponent=bees-v1&result=won", [40]),
        ("opponent=nobody", []),
    ],
)
def test_the_filters_narrow_the_rows_alike_on_the_page_and_in_the_api(
    league: dict[str, Any], query: str, expected: list[int]
) -> None:
    ants = league["teams"][0]
    for url in (f"/api/v1/teams/{ants.pk}/matches/?{query}",
                f"/api/v1/versions/{league['versions']['ants'].pk}/matches/?{query}"):  # fmt: skip
        body = _api(url, ants).json()
        assert [row["raw_chips"] for row in body["matches"]] == expected, url
    page = _client(ants).get(f"/teams/{ants.pk}/matches/?{query}")
    assert page.status_code == 200
    assert page.content.decode().count('<td class="won">') == sum(chips > 0 for chips in expected)


@pytest.mark.parametrize(
    ("query", "named"),
    [("result=draw", "result='draw'"), ("faults=maybe", "faults='maybe'"),
     ("page=0", "page='0'"), ("page=x", "page='x'"), ("page=2", "page=2")],
)  # fmt: skip
def test_a_bad_filter_is_a_400_naming_the_value(
    league: dict[str, Any], query: str, named: str
) -> None:
    ants = league["teams"][0]
    api = _api(f"/api/v1/teams/{ants.pk}/matches/?{query}", ants)
    assert api.status_code == 400 and named in api.json()["error"]
    page = _client(ants).get(f"/teams/{ants.pk}/matches/?{query}")
    assert page.status_code == 400 and named in page.content.decode().replace("&#x27;", "'")


def test_paging_keeps_the_filter_and_ends(league: dict[str, Any]) -> None:
    ants = league["teams"][0]
    ours, theirs = league["versions"]["ants"], league["versions"]["bees"]
    for number in range(10, 10 + PAGE_SIZE):
        _match(number, ours, theirs, chips=1)
    url = f"/api/v1/versions/{ours.pk}/matches/?result=won"
    first = _api(url, ants).json()
    assert (first["count"], first["pages"], len(first["matches"])) == (PAGE_SIZE + 2, 2, PAGE_SIZE)
    assert first["previous"] is None and "result=won" in first["next"]
    second = _api(first["next"], ants).json()
    assert second["page"] == 2 and len(second["matches"]) == 2 and second["next"] is None
    assert {row["match"] for row in first["matches"]}.isdisjoint(
        row["match"] for row in second["matches"]
    )
    page = _client(ants).get(f"/versions/{ours.pk}/matches/?result=won").content.decode()
    assert 'rel="next"' in page and "page=2" in page and 'rel="prev"' not in page


def test_a_teams_own_faulted_ladder_row_links_to_the_reasons(league: dict[str, Any]) -> None:
    ants, bees, _ = league["teams"]
    version = league["versions"]["ants"]
    why = f'href="/ladder/versions/{version.pk}/#faults"'
    assert why in _client(ants).get(f"/teams/{ants.pk}/matches/").content.decode()
    assert why not in _client(bees).get(f"/teams/{ants.pk}/matches/").content.decode()


def test_a_row_never_carries_a_failure_text_a_path_or_a_seed(league: dict[str, Any]) -> None:
    ants = league["teams"][0]
    version = league["versions"]["ants"]
    for text in (
        _api(f"/api/v1/versions/{version.pk}/matches/", ants).content.decode(),
        _client(ants).get(f"/versions/{version.pk}/matches/").content.decode(),
    ):
        assert SECRET_STDERR not in text and "secret-folder" not in text and "seed" not in text


def test_a_version_history_is_its_teams_only(league: dict[str, Any]) -> None:
    bees = league["teams"][1]
    version = league["versions"]["ants"]
    assert _api(f"/api/v1/versions/{version.pk}/matches/", bees).status_code == 404
    assert _client(bees).get(f"/versions/{version.pk}/matches/").status_code == 404


def test_a_team_history_follows_the_sites_visibility(league: dict[str, Any]) -> None:
    ants, bees, cats = league["teams"]
    # Public facts (as the match pages): every team sees the others' history...
    assert _api(f"/api/v1/teams/{ants.pk}/matches/", cats).json()["count"] == 4
    assert Client().get(f"/api/v1/teams/{ants.pk}/matches/").json()["count"] == 4
    # ... unless the site shows nothing of other teams' matches: then only one's own.
    SiteSettings.objects.update_or_create(pk=1, defaults={"visibility": "nothing"})
    assert Client().get(f"/api/v1/teams/{ants.pk}/matches/").json()["count"] == 0
    assert _api(f"/api/v1/teams/{ants.pk}/matches/", cats).json()["count"] == 1  # vs cats
    assert _api(f"/api/v1/teams/{ants.pk}/matches/", bees).json()["count"] == 3
    assert _api(f"/api/v1/teams/{ants.pk}/matches/", ants).json()["count"] == 4
    assert _api("/api/v1/teams/999999/matches/", ants).status_code == 404


def test_a_team_playing_itself_has_a_row_per_seat(league: dict[str, Any]) -> None:
    # A promotion test plays a team's candidate against its active version: both seats
    # are the team's, each its own row with its own result.
    ants = league["teams"][0]
    older = league["versions"]["ants"]
    newer = make_version(ants, status=VersionStatus.ACCEPTED)
    match = _match(0, newer, older, chips=12)
    body = _api(f"/api/v1/teams/{ants.pk}/matches/", ants).json()
    rows = [row for row in body["matches"] if row["match"] == match.pk]
    assert sorted((row["bot"], row["raw_chips"]) for row in rows) == [
        ("ants-v1", -12),
        ("ants-v2", 12),
    ]


def test_the_filter_reads_back_as_its_query() -> None:
    wanted = HistoryFilter.from_query({"opponent": " bees ", "result": "lost", "faults": "on"})
    assert wanted == HistoryFilter("bees", "lost", True, 1)
    assert wanted.as_query() == {"opponent": "bees", "result": "lost", "faults": "1"}
    assert HistoryFilter.from_query({}).as_query() == {}
    with pytest.raises(HistoryQueryError, match="result='x'"):
        HistoryFilter.from_query({"result": "x"})


def test_the_team_and_version_pages_link_to_their_history(league: dict[str, Any]) -> None:
    ants = league["teams"][0]
    version = league["versions"]["ants"]
    client = _client(ants)
    assert f'href="/teams/{ants.pk}/matches/"' in client.get(f"/teams/{ants.pk}/").content.decode()
    page = client.get(f"/versions/{version.pk}/").content.decode()
    assert f'href="/versions/{version.pk}/matches/"' in page
    assert f'href="/api/v1/versions/{version.pk}/hands.jsonl"' in page
