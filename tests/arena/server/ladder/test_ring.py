"""Ring tables on the ladder: with a ring competition file (``format = "ring"``, ``[ring]
seats = 3``) every rated game is a table of three versions of three teams, played in the
table's three rotations (each stored as a match of the site), its result stored per version
(luck-adjusted with raw beside it) and rated as its pairs; a version that does not start
forfeits and is flagged while the others keep a result; a table whose worker died is
played again once; version tests stay heads-up; the admin lists every seat; the finals are
a ring tournament."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from arena.ladder.ends import EndCause
from arena.server.competition import read_competition
from arena.server.ladder import config
from arena.server.ladder.finals import finals_format
from arena.server.ladder.fitting import refresh_ratings
from arena.server.ladder.models import (
    FinalsRun,
    Game,
    GameStatus,
    Rating,
    TableSeat,
    UnrankedRequest,
)
from arena.server.ladder.play import PlayedGame, _failed, ladder_rules
from arena.server.ladder.queue import claim_next, store_played
from arena.server.ladder.sums import pair_sums
from arena.server.site.models import LeaderboardRow, Match, MatchSeat
from arena.settings.catalog import Format
from arena.store.outcome import MatchOutcome
from arena.tournament.config import DEFAULT_TABLE_SEATS
from arena.uploads import ArchiveLimits
from tests.arena.server.factories import PASSWORD, make_team
from tests.arena.server.ladder.conftest import accepted, not_starting_bot, team_with

#: The four starter bots of the ring tests' four teams.
TEAMS = {"ants": "station", "bees": "folder", "cats": "random", "dogs": "strength"}


def _competition(tmp_path: Path, *, seats: str = "[ring]\nseats = 3\n", extra: str = "") -> Path:
    path = tmp_path / "ring.toml"
    path.write_text(f'format = "ring"\ndeals = 4\nblock_deals = 4\n{extra}{seats}',
                    encoding="utf-8")  # fmt: skip
    return path


@pytest.fixture
def ring(small_ladder: None, tmp_path: Path) -> Iterator[Path]:
    """The site's competition is a ring of three seats. It names no ``concurrency``: the
    worker plays a table's three rotations one after the other on its one pool worker
    (conftest.py), as it would on a one-core machine; what is stored and rated is the same."""
    path = _competition(tmp_path)
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        yield path


def test_a_ring_competition_seats_its_ring_and_any_other_format_plays_heads_up(
    tmp_path: Path,
) -> None:
    archive = ArchiveLimits()
    rules = ladder_rules(read_competition(_competition(tmp_path)), archive)
    assert rules.table_size == 3 and rules.config.ring_seats == 3
    unseated = read_competition(_competition(tmp_path, seats=""))
    assert ladder_rules(unseated, archive).table_size == DEFAULT_TABLE_SEATS
    heads_up = tmp_path / "rr.toml"
    heads_up.write_text('format = "round_robin"\n', encoding="utf-8")
    assert ladder_rules(read_competition(heads_up), archive).table_size == 2
    assert ladder_rules(None, archive).table_size == 2


def test_the_worker_plays_tables_of_three_teams_stores_each_rotation_and_rates_everyone(
    ring: Path,
) -> None:
    versions = {team: team_with(team, bot)[1] for team, bot in TEAMS.items()}
    call_command("ladder_worker", "--games", "2")
    games = list(Game.objects.order_by("pk"))
    assert len(games) == 2
    for game in games:
        assert game.status == GameStatus.DONE and game.is_rated and game.seat_count == 3
        seats = game.seats_in_order()
        assert len({seat.version.team_id for seat in seats}) == 3  # three teams
        assert [seat.version_id for seat in seats[:2]] == [game.first_id, game.second_id]
        assert game.hand_count == 3 * game.deals
        # Each version's score, luck-adjusted with raw beside it; a table is zero-sum.
        assert all(s.adjusted_mbb is not None and s.raw_mbb is not None for s in seats)
        assert sum(s.raw_mbb or 0.0 for s in seats) == pytest.approx(0.0, abs=1e-6)
        assert game.adjusted_mbb == seats[0].adjusted_mbb
        # Three matches, one per rotation: seat i holds version (i + r) mod 3.
        matches = [Match.objects.get(pk=pk) for pk in game.rotation_matches]
        assert [m.external_id for m in matches] == [
            f"game-{game.pk}",
            f"game-{game.pk}-r1",
            f"game-{game.pk}-r2",
        ]
        for rotation, match in enumerate(matches):
            assert match.hands_played == game.deals
            seated = list(match.seats.order_by("seat_index").values_list("version", flat=True))
            assert seated == [seats[(i + rotation) % 3].version_id for i in range(3)]
    assert Match.objects.filter(source="ladder").count() == 6
    # The sums hold each table as its three pairs, and the fit rates every active version
    # (fitted now: the worker's last fit may be a few seconds older than its last game).
    assert sum(pair.game_count for pair in pair_sums().values()) == 6
    refresh_ratings()
    rated = dict(Rating.objects.values_list("version", "game_count"))
    assert set(rated) == {version.pk for version in versions.values()}
    assert all(count > 0 for count in rated.values())
    # A table's hands count once for each version at it (not once per pair).
    hands = {row.name: row.hands for row in LeaderboardRow.objects.filter(board="ladder")}
    for team, version in versions.items():
        played = [g for g in games if version.pk in {s.version_id for s in g.seats_in_order()}]
        assert hands[f"{team}-v1"] == sum(g.hand_count for g in played)
    # The ladder page and the version's page show each version's score at the table.
    game = games[0]
    data = Client().get("/api/v1/ladder/").json()
    (table,) = [t for t in data["tables"] if t["id"] == game.pk]
    assert [seat["bot"] for seat in table["seats"]] == [
        f"{s.version.team.name}-v1" for s in game.seats_in_order()
    ]
    assert all(seat["raw_mbb"] is not None for seat in table["seats"])
    assert "Last tables" in Client().get("/ladder/").content.decode()
    owner = game.first.team.name
    client = Client()
    assert client.login(username=f"{owner}-1", password=PASSWORD)
    page = client.get(f"/ladder/versions/{game.first_id}/").content.decode()
    for seat in game.seats_in_order():
        assert f"{seat.version.team.name}-v1: " in page
    api = client.get(f"/api/v1/ladder/versions/{game.first_id}/").json()
    (row,) = [row for row in api["games"] if row["id"] == game.pk]
    assert row["adjusted_mbb"] == pytest.approx(game.adjusted_mbb, abs=0.1)
    assert row["matches"] == game.rotation_matches and len(row["seats"]) == 3


def test_a_version_that_does_not_start_at_a_table_forfeits_the_others_keep_a_result(
    ring: Path, tmp_path: Path
) -> None:
    _ants, station = team_with("ants", "station")
    _bees, folder = team_with("bees", "folder")
    dud = accepted(make_team("cats"), not_starting_bot(tmp_path))
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.BOT_FAULT and game.seat_count == 3
    assert "cats-v1 did not start" in game.end_reason
    by_version = {seat.version_id: seat for seat in game.seats_in_order()}
    assert by_version[dud.pk].at_fault and by_version[dud.pk].adjusted_mbb == -750.0
    for other in (station, folder):
        assert not by_version[other.pk].at_fault
        assert by_version[other.pk].adjusted_mbb == 375.0  # the forfeit shared
    assert game.is_at_fault(dud.pk) and not game.is_at_fault(station.pk)
    # Its page shows the fault with the reason; its table's matches are stored.
    client = Client()
    assert client.login(username="cats-1", password=PASSWORD)
    page = client.get(f"/ladder/versions/{dud.pk}/").content.decode()
    assert "at a table with" in page and "cats-v1 did not start" in page
    assert len(game.rotation_matches) == 3


def test_a_table_whose_worker_died_is_played_again_once(ring: Path) -> None:
    for team, bot in list(TEAMS.items())[:3]:
        team_with(team, bot)
    settings = config.current()
    game = claim_next("dead-worker", settings, random.Random(1), table_size=3)
    assert game is not None and game.seat_count == 3 and game.attempts == 1
    # The worker died: its lease runs out, and the next worker plays the table whole.
    Game.objects.filter(pk=game.pk).update(lease_expires=timezone.now() - timedelta(seconds=1))
    call_command("ladder_worker", "--games", "1")
    (played,) = Game.objects.all()
    assert played.pk == game.pk and played.status == GameStatus.DONE and played.attempts == 2
    assert played.end_reason == "played to its end"
    assert played.hand_count == 3 * played.deals
    # The dead worker's late result is refused: the table is counted once.
    assert not store_played(game, "dead-worker", PlayedGame(EndCause.PLAYED), settings)
    assert Match.objects.filter(source="ladder").count() == 3
    assert MatchSeat.objects.filter(match__source="ladder").count() == 9
    assert sorted(Rating.objects.values_list("game_count", flat=True)) == [1, 1, 1]


def test_version_tests_and_test_games_stay_heads_up_in_a_ring_competition(ring: Path) -> None:
    ants, station = team_with("ants", "station")
    team_with("bees", "folder")
    _cats, random_bot = team_with("cats", "random")
    UnrankedRequest.objects.create(team=ants, bot=station, opponent=random_bot, games_left=1)
    game = claim_next("w", config.current(), random.Random(1), table_size=3)
    assert game is not None and game.kind == "test" and not game.is_rated
    assert game.seat_count == 2 and not game.seats_in_order()
    rated = claim_next("w", config.current(), random.Random(1), table_size=3)
    assert rated is not None and rated.is_rated and rated.seat_count == 3


def test_a_failed_table_match_names_whichever_of_its_versions_did_not_start() -> None:
    error = "1 bot not ready at the start of the match: 'cats-v1' (seat 2): exited: 3"
    absent = MatchOutcome("game-1-r1", (), (), "error", None, 0.1, error=error)
    played = _failed([absent], ("ants-v1", "bees-v1", "cats-v1"), {}, ())
    assert played.cause is EndCause.BOT_NOT_READY and played.at_fault == ("cats-v1",)


def test_the_finals_of_a_ring_competition_are_a_ring_tournament(
    small_ladder: None, tmp_path: Path
) -> None:
    assert finals_format(2, 5) == {"format": Format.ROUND_ROBIN, "ring_seats": None}
    assert finals_format(3, 2)["format"] is Format.ROUND_ROBIN  # two entrants: heads-up
    for team, bot in list(TEAMS.items())[:3]:
        team_with(team, bot)
    path = _competition(tmp_path, extra="[ladder]\ndeadline = 2020-01-01T00:00:00Z\n")
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        call_command("ladder_finals")
    run = FinalsRun.objects.get()
    assert run.status == "done" and sorted(run.entrants) == ["ants-v1", "bees-v1", "cats-v1"]
    finals = Match.objects.filter(source__startswith="tournament")
    ids = sorted(finals.values_list("external_id", flat=True))
    assert ids == ["ring-001-b01-r1", "ring-001-b01-r2", "ring-001-b01-r3"]
    assert all(match.seats.count() == 3 for match in finals)
    rows = run.standings["leaderboard"]["rows"]
    assert sorted(row["bot"] for row in rows) == ["ants-v1", "bees-v1", "cats-v1"]


def test_the_admin_lists_a_table_s_every_seat(ring: Path) -> None:
    from django.contrib.auth.models import User

    versions = [team_with(team, bot)[1] for team, bot in list(TEAMS.items())[:3]]
    game = Game.objects.create(kind="placement", first=versions[0], second=versions[1],
                               seed="1", deals=4, seat_count=3)  # fmt: skip
    for index, version in enumerate(versions):
        TableSeat.objects.create(game=game, seat_index=index, version=version)
    User.objects.create_superuser("boss", password="a long enough password")
    client = Client()
    client.login(username="boss", password="a long enough password")
    listing = client.get("/admin/arena_ladder/game/").content.decode()
    assert "Other seats" in listing and 'field-others">cats-v1<' in listing
    page = client.get(f"/admin/arena_ladder/game/{game.pk}/change/")
    assert page.status_code == 200 and "Table seats" in page.content.decode()
