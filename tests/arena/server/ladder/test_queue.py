"""The queue and the play step without bots: a game whose worker keeps dying is left out
after its attempts, an unranked test game is scheduled from a team's request, a version
that cannot be unpacked forfeits, a match that failed for the arena is played again, and a
worker whose play step raises stores an infrastructure failure, never a bot's; a game's
matches are stored in a few statements, a row already there rewritten in place."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.bots.sandbox.select import SandboxLevel
from arena.ladder.ends import EndCause
from arena.server.jobs.lease import lease_seconds
from arena.server.ladder import config
from arena.server.ladder.models import Game, GameStatus, UnrankedRequest, version_label
from arena.server.ladder.play import (
    GameSpec,
    LadderRules,
    PlayedGame,
    VersionFiles,
    _failed,
    play_game,
)
from arena.server.ladder.queue import claim_next, store_played
from arena.server.site.models import FailureKind, Match, MatchSeat, MatchStatus
from arena.store.outcome import MatchOutcome, SeatOutcome
from arena.tournament.config import TournamentConfig
from tests.arena.server.ladder.conftest import team_with


def test_a_game_whose_worker_keeps_dying_is_left_out_with_its_reason(small_ladder: None) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    settings = config.current()
    now = timezone.now()
    game = claim_next("w0", settings, random.Random(1), now=now)
    assert game is not None
    for attempt in range(1, settings.max_attempts):
        now += timedelta(seconds=lease_seconds() + 1)
        again = claim_next(f"w{attempt}", settings, random.Random(1), now=now)
        assert again is not None and again.pk == game.pk
    now += timedelta(seconds=lease_seconds() + 1)
    claim_next("late", settings, random.Random(1), now=now)
    game.refresh_from_db()
    assert game.status == GameStatus.FAILED_INFRASTRUCTURE
    assert f"on each of {settings.max_attempts} attempts: left out" in game.end_reason


def test_an_unranked_test_game_is_scheduled_from_the_team_s_request(small_ladder: None) -> None:
    ants, station = team_with("ants", "station")
    _bees, folder = team_with("bees", "folder")
    UnrankedRequest.objects.create(team=ants, bot=station, opponent=folder, games_left=2)
    game = claim_next("w", config.current(), random.Random(1))
    assert game is not None and game.kind == "test" and not game.is_rated
    assert game.requested_by == ants and game.first == station
    assert UnrankedRequest.objects.get().games_left == 1
    assert game.seed and int(game.seed) > 2**200  # the site's secret stream, 256 bits


def test_an_unknown_setting_is_named() -> None:
    with override_settings(ARENA_LADDER={"dealz": 3}), pytest.raises(ValueError, match="dealz"):
        config.current()


def _rules() -> LadderRules:
    return LadderRules(TournamentConfig(bots=()), SandboxLevel.NONE)


def test_a_version_that_cannot_be_unpacked_forfeits(tmp_path: Path) -> None:
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"not an archive")
    good = VersionFiles("ants-v1", broken, 1)
    spec = GameSpec(7, good, VersionFiles("bees-v1", broken, 2), seed=1, deals=2)
    played = play_game(spec, executor=None, rules=_rules(), root=tmp_path)  # type: ignore[arg-type]
    assert played.cause is EndCause.BOT_NOT_READY and played.at_fault == ("ants-v1",)
    assert "cannot be unpacked" in played.detail


def _outcome(error: str) -> MatchOutcome:
    return MatchOutcome("game-1", (), (), "error", None, 0.1, error=error)


def test_a_failed_match_is_the_bot_s_fault_only_when_it_did_not_start() -> None:
    absent = _outcome("1 bot not ready at the start of the match: 'bees-v1' (seat 1): exited: 3")
    played = _failed([absent], ("ants-v1", "bees-v1"), {}, ())
    assert played.cause is EndCause.BOT_NOT_READY and played.at_fault == ("bees-v1",)
    assert played.detail == "bees-v1: exited"
    sandbox = _failed([_outcome("cannot prepare the match: no bwrap")], ("a", "b"), {}, ())
    assert sandbox.cause is EndCause.SANDBOX_UNAVAILABLE
    ours = _failed([_outcome("RuntimeError: boom")], ("a", "b"), {}, ())
    assert ours.cause is EndCause.ARENA_ERROR and not ours.at_fault


def test_a_worker_whose_play_step_raises_plays_the_game_again(
    small_ladder: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")

    def boom(*_args: object) -> None:
        raise RuntimeError("the arena broke")

    monkeypatch.setattr("arena.server.ladder.management.commands.ladder_worker.play_game", boom)
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.QUEUED and not game.first_at_fault
    assert "the arena failed: played again" in game.end_reason
    # The exception's text is the organiser's (the worker's log), not the teams'.
    assert "the arena broke" not in game.end_reason


def test_the_admin_plays_again_only_the_infrastructure_s_failures(small_ladder: None) -> None:
    from django.contrib.auth.models import User
    from django.test import Client

    _ants, station = team_with("ants", "station")
    _bees, folder = team_with("bees", "folder")
    common = {"kind": "uncertainty", "first": station, "second": folder, "seed": "1", "deals": 4}
    lost = Game.objects.create(status=GameStatus.FAILED_INFRASTRUCTURE, attempts=3, **common)
    forfeit = Game.objects.create(status=GameStatus.BOT_FAULT, attempts=1, **common)
    User.objects.create_superuser("boss", password="a long enough password")
    client = Client()
    client.login(username="boss", password="a long enough password")
    response = client.post(
        "/admin/arena_ladder/game/",
        {"action": "play_again", "_selected_action": [lost.pk, forfeit.pk]},
        follow=True,
    )
    assert "1 game(s) queued again; 1 left alone" in response.content.decode()
    assert Game.objects.get(pk=lost.pk).status == GameStatus.QUEUED
    assert Game.objects.get(pk=forfeit.pk).status == GameStatus.BOT_FAULT


def test_a_game_s_reason_holds_no_stderr_no_path_and_no_exception_text() -> None:
    # The reason is read by every version at the table: the bot's stderr tail (quoted
    # after its failure's code), a path or an OSError's text stays in the organiser's log.
    stderr = "Traceback: /home/bees/secret_strategy.py line 3: KEY=hunter2"
    absent = _outcome(
        f"1 bot not ready at the start of the match: 'bees-v1' (seat 1): exited: {stderr}"
    )
    played = _failed([absent], ("ants-v1", "bees-v1"), {}, ())
    failed = _failed([_outcome("OSError: [Errno 28] /srv/site/work/ladder full")], ("a", "b"),
                     {}, ())  # fmt: skip
    sandbox = _failed([_outcome("cannot prepare the match: /srv/site/bwrap")], ("a", "b"), {}, ())
    for game in (played, failed, sandbox):
        assert "hunter2" not in game.detail and "/" not in game.detail
    assert played.detail == "bees-v1: exited"


def test_a_version_that_cannot_be_read_is_named_without_its_path(tmp_path: Path) -> None:
    archive = tmp_path / "secret-folder" / "gone.tar.gz"  # missing: an OSError with its path
    spec = GameSpec(7, VersionFiles("ants-v1", archive, 1), VersionFiles("bees-v1", archive, 2),
                    seed=1, deals=2)  # fmt: skip
    played = play_game(spec, executor=None, rules=_rules(), root=tmp_path)  # type: ignore[arg-type]
    assert "secret-folder" not in played.detail and "gone.tar.gz" not in played.detail


def _not_started(game: Game) -> PlayedGame:
    """What a worker brings back for ``game`` when its second version did not start: two
    failed matches, seats swapped."""
    first, second = version_label(game.first), version_label(game.second)
    error = f"1 bot not ready at the start of the match: {second!r} (seat 1): exited: 3"
    matches = tuple(
        (MatchOutcome(match_id, tuple(SeatOutcome(index, bot, 0, 0, 0)
                                      for index, bot in enumerate(seats)),
                      (), "error", None, 0.1, error=error), Path("/work/ladder/games"))
        for match_id, seats in ((f"game-{game.pk}", (first, second)),
                                (f"game-{game.pk}-swap", (second, first)))
    )  # fmt: skip
    return PlayedGame(EndCause.BOT_NOT_READY, (second,), "", matches=matches)


def _claimed_game(worker: str) -> Game:
    _ants, station = team_with("ants", "station")
    _bees, folder = team_with("bees", "folder")
    return Game.objects.create(
        kind="uncertainty", first=station, second=folder, seed="1", deals=4,
        status=GameStatus.CLAIMED, claimed_by=worker, attempts=1,
        lease_expires=timezone.now() + timedelta(seconds=lease_seconds()),
    )  # fmt: skip


def test_a_game_s_matches_are_stored_in_three_statements_whatever_their_count(
    small_ladder: None,
) -> None:
    # One read of the rows already there, one insert of the matches, one of their seats:
    # not a read, a write and a savepoint per match and per seat.
    game = _claimed_game("w:1")
    with CaptureQueriesContext(connection) as captured:
        assert store_played(game, "w:1", _not_started(game), config.current())
    touching = [query["sql"] for query in captured if "arena_server_match" in query["sql"]]
    assert len(touching) == 3, touching
    stored = Game.objects.get(pk=game.pk)
    assert stored.status == GameStatus.BOT_FAULT and stored.second_at_fault
    assert stored.match_seat is not None and stored.match_swap is not None
    assert stored.match_seat.external_id == f"game-{game.pk}"
    assert stored.match_swap.external_id == f"game-{game.pk}-swap"
    pair = [game.first, game.second]
    for match, versions in ((stored.match_seat, pair), (stored.match_swap, pair[::-1])):
        assert match.status == MatchStatus.FAILED and match.failure_kind == FailureKind.BOT_FAULT
        seats = list(match.seats.order_by("seat_index"))
        assert [seat.version for seat in seats] == versions
        assert [seat.team for seat in seats] == [version.team for version in versions]


def test_a_match_row_already_there_is_rewritten_in_place_its_seats_made_again(
    small_ladder: None,
) -> None:
    # A row left under the game's match id (a store this one replaces) keeps its number,
    # so the links to it hold; it says what this store says, with no stale seat left.
    game = _claimed_game("w:1")
    left = Match.objects.create(source="ladder", external_id=f"game-{game.pk}",
                                status=MatchStatus.FINISHED, hands_played=9)  # fmt: skip
    MatchSeat.objects.create(match=left, seat_index=0, name="stale", chips_won=5)
    assert store_played(game, "w:1", _not_started(game), config.current())
    stored = Game.objects.get(pk=game.pk)
    assert stored.match_seat_id == left.pk
    again = Match.objects.get(pk=left.pk)
    assert again.status == MatchStatus.FAILED and again.hands_played == 0
    assert sorted(again.seats.values_list("name", flat=True)) == sorted(
        [version_label(game.first), version_label(game.second)]
    )
    assert Match.objects.filter(source="ladder").count() == 2
