"""A version's own faults in a ladder game (issue 32, defect 4): its team sees each fault's
reason, the hand and its own stderr, on its ladder page and in the API; the opponent's team
sees none of it (issue 31, finding 2: another team's stderr never reaches a team)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.test import Client

from arena.server.ladder.models import Game, OwnFaults
from arena.server.ladder.own_faults import STDERR_TAIL_CHARS, absent_bots, own_faults
from arena.server.site.models import BotVersion, Team
from arena.server.site.scope import visible
from arena.store.outcome import FaultExample, MatchOutcome, SeatOutcome
from arena.uploads import pack
from tests import REPO_ROOT
from tests.arena.server.factories import PASSWORD, make_team, make_token
from tests.arena.server.ladder.conftest import accepted, team_with

#: What the crashing bot writes to stderr before it exits (code 3) on the flop.
CRASHER_SAYS = "crasher: crashing at FLOP (exit)"


def _page_and_api(team: Team, version: BotVersion) -> tuple[str, dict[str, Any]]:
    """``version``'s ladder page (``team``'s member logged in) and its API answer (``team``'s
    token)."""
    client = Client()
    assert client.login(username=f"{team.name}-1", password=PASSWORD)
    page = client.get(f"/ladder/versions/{version.pk}/")
    assert page.status_code == 200
    api = Client().get(f"/api/v1/ladder/versions/{version.pk}/",
                       HTTP_AUTHORIZATION=f"Bearer {make_token(team)}")  # fmt: skip
    assert api.status_code == 200
    return page.content.decode(), api.json()


def test_a_crash_s_reason_hand_and_stderr_reach_its_team_and_not_the_opponent_s(
    small_ladder: None,
) -> None:
    ants, station = team_with("ants", "station")
    bees = make_team("bees")
    crasher = accepted(bees, pack(REPO_ROOT / "tests" / "bots" / "crasher"))
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    (own,) = OwnFaults.objects.all()
    assert own.version == crasher  # the station made no fault: no row of its own
    page, api = _page_and_api(bees, crasher)
    (row,) = api["games"]
    crashes = [fault for fault in row["fault_details"] if fault["kind"] == "crash"]
    assert crashes, row["fault_details"]
    first = crashes[0]
    assert isinstance(first["hand"], int) and first["hand"] >= 1
    assert "exit code 3" in first["reason"] and first["match"].startswith(f"game-{game.pk}")
    assert CRASHER_SAYS in row["stderr"]
    assert f"at hand {first['hand']}" in page and "exit code 3" in page
    assert CRASHER_SAYS in page
    # The opponent played the same game: its page and API show the game, never the
    # crasher's stderr (nor the station's own fault details: it made none).
    their_page, their_api = _page_and_api(ants, station)
    (their_row,) = their_api["games"]
    assert their_row["id"] == game.pk and their_row["fault_details"] == []
    assert "crasher: crashing" not in their_page
    assert "crasher: crashing" not in str(their_api)
    # And the crasher's version page is not theirs to read.
    client = Client()
    assert client.login(username="ants-1", password=PASSWORD)
    assert client.get(f"/ladder/versions/{crasher.pk}/").status_code == 404


def test_a_bot_that_does_not_start_shows_its_team_why_and_what_it_printed(
    small_ladder: None, tmp_path: Path
) -> None:
    ants, station = team_with("ants", "station")
    folder = tmp_path / "dud"
    folder.mkdir()
    (folder / "dud.py").write_text(
        "import sys\nsys.stderr.write('dud: missing KEY=hunter2\\n')\nsys.exit(3)\n",
        encoding="utf-8",
    )
    (folder / "bot.toml").write_text(
        'name = "dud"\ncommand = ["{python}", "dud.py"]\n', encoding="utf-8"
    )
    bees = make_team("bees")
    dud = accepted(bees, pack(folder))
    call_command("ladder_worker", "--games", "1")
    page, api = _page_and_api(bees, dud)
    (row,) = api["games"]
    # It did not start in either match of the pair: once per match.
    assert [fault["match"] for fault in row["fault_details"]] == [
        f"game-{row['id']}",
        f"game-{row['id']}-swap",
    ]
    for fault in row["fault_details"]:
        assert fault["kind"] == "startup_failure" and fault["hand"] is None
        assert "exit code 3" in fault["reason"] and "hunter2" not in fault["reason"]
    assert "dud: missing KEY=hunter2" in row["stderr"] and "hunter2" in page
    assert "before the first hand" in page
    # The public reason still names the code only; the opponent reads no stderr.
    assert "hunter2" not in row["reason"]
    their_page, their_api = _page_and_api(ants, station)
    assert "hunter2" not in their_page and "hunter2" not in str(their_api)


def test_own_faults_are_visible_to_their_version_s_team_only(small_ladder: None) -> None:
    ants, station = team_with("ants", "station")
    bees, folder = team_with("bees", "folder")
    game = Game.objects.create(kind="uncertainty", first=station, second=folder, seed="1",
                               deals=4)  # fmt: skip
    row = OwnFaults.objects.create(game=game, version=folder, stderr="bees' secret")
    assert list(visible(bees, OwnFaults)) == [row]
    assert not visible(ants, OwnFaults).exists()  # the opponent: none
    assert not visible(None, OwnFaults).exists()  # a visitor: none
    assert str(row) == f"game {game.pk}: {folder}'s faults"


def _seat(index: int, bot: str, **fields: object) -> SeatOutcome:
    return SeatOutcome(index, bot, 0, 1, 3, **fields)  # type: ignore[arg-type]


def test_each_version_s_details_are_built_from_its_own_seats_only(tmp_path: Path) -> None:
    # Seat 1 crashed and wrote a long stderr; seat 0 wrote to stderr too, but made no fault:
    # it has no details, and its words never join seat 1's.
    stderr = tmp_path / "matches" / "m1" / "stderr"
    stderr.mkdir(parents=True)
    (stderr / "0-a.log").write_text("a's own words\n", encoding="utf-8")
    (stderr / "1-b.log").write_text("x" * STDERR_TAIL_CHARS + "b died here\n", encoding="utf-8")
    crash = FaultExample("crash", 7, "bot 'b' exited (exit code 3); its stderr ends with: 'b d'")
    outcome = MatchOutcome(
        "m1",
        (_seat(0, "a", stderr_path="matches/m1/stderr/0-a.log"),
         _seat(1, "b", stderr_path="matches/m1/stderr/1-b.log", fault_examples=(crash,))),
        (), "done", None, 1.0,
    )  # fmt: skip
    found = own_faults([(outcome, tmp_path)])
    assert set(found) == {"b"}
    (detail,) = found["b"].faults
    assert (detail.match, detail.kind, detail.hand) == ("m1", "crash", 7)
    assert detail.reason == "bot 'b' exited (exit code 3)"  # the stderr comes from its file
    assert found["b"].stderr.startswith("--- m1 ---\n") and found["b"].stderr.endswith("here\n")
    assert len(found["b"].stderr) == len("--- m1 ---\n") + STDERR_TAIL_CHARS  # its end only
    assert "a's own words" not in found["b"].stderr


def test_a_fault_without_a_stderr_file_has_its_reason_and_no_stderr(tmp_path: Path) -> None:
    # A match that stopped before its first hand names no file: its usual place is read,
    # and nothing there is no stderr (not an error).
    error = ("2 bots not ready at the start of the match: 'a' (seat 0): startup_timeout: "
             "no ready within 10 ms; 'b' (seat 1): exited: bot 'b' exited (exit code 3); "
             "its stderr ends with: 'KEY'")  # fmt: skip
    outcome = MatchOutcome("m2", (_seat(0, "a"), _seat(1, "b")), (), "error", None, 0.1,
                           error=error)  # fmt: skip
    found = own_faults([(outcome, tmp_path)])
    assert [d.reason for d in found["a"].faults] == ["no ready within 10 ms"]
    assert [d.reason for d in found["b"].faults] == ["bot 'b' exited (exit code 3)"]
    assert found["a"].stderr == "" and found["b"].stderr == ""
    assert absent_bots("RuntimeError: boom") == []


def test_a_bot_not_ready_without_a_reason_is_named_by_its_code() -> None:
    (bot,) = absent_bots("1 bot not ready at the start of the match: 'b' (seat 1): exited")
    assert (bot.name, bot.seat_index, bot.code, bot.reason) == ("b", 1, "exited", "exited")
