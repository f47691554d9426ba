"""The ladder's worker with real bots (few deals): it plays a queued game and stores its
result once, fits the ratings, shows a bot that does not start as that bot's forfeit, and
a claim whose lease expired is played again and counted once."""

from __future__ import annotations

import io
import itertools
import os
import random
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from arena.cluster.dask_executor import ClusterError
from arena.cluster.local import LocalMatchExecutor
from arena.ladder.ends import EndCause
from arena.luck import ESTIMATOR
from arena.server.competition import read_competition
from arena.server.current import current_competition
from arena.server.jobs.backoff import Backoff
from arena.server.jobs.lease import lease_seconds
from arena.server.ladder import config
from arena.server.ladder.management.commands import ladder_worker as worker_module
from arena.server.ladder.management.commands.ladder_worker import Command, _executor, site_paced
from arena.server.ladder.models import Game, GameStatus, Rating
from arena.server.ladder.play import LadderRules, PlayedGame, ladder_rules
from arena.server.ladder.queue import claim_next, store_played
from arena.server.site.models import LeaderboardRow, Match
from arena.settings import SettingsError
from arena.tournament.worker import play_match
from arena.uploads import ArchiveLimits
from tests.arena.server.factories import make_team, make_token
from tests.arena.server.ladder.conftest import SMALL, accepted, not_starting_bot, team_with


def test_the_worker_plays_a_game_stores_it_once_and_rates_both(small_ladder: None) -> None:
    _ants, station = team_with("ants", "station")
    _bees, folder = team_with("bees", "folder")
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.DONE and game.attempts == 1
    assert game.hand_count == 2 * game.deals and len(game.units["adjusted"]) == game.deals
    # The calling station takes the folder's blinds: it wins, luck-adjusted and raw.
    score = game.score_for(station.pk)
    assert score is not None and score > 0
    matches = set(Match.objects.filter(source="ladder").values_list("pk", flat=True))
    assert {game.match_seat_id, game.match_swap_id} == matches
    assert list(Rating.objects.values_list("version", flat=True)) == [station.pk, folder.pk]
    board = LeaderboardRow.objects.filter(board="ladder")
    assert [row.name for row in board] == ["ants-v1", "bees-v1"]
    # Stored once: the claim is spent, a second store (a late duplicate) writes nothing.
    again = PlayedGame(EndCause.PLAYED)
    assert not store_played(game, game.claimed_by, again, config.current())
    assert Game.objects.get(pk=game.pk).adjusted_mbb == game.adjusted_mbb


def test_a_bot_that_does_not_start_forfeits_and_its_page_says_why(
    small_ladder: None, tmp_path: Path
) -> None:
    _ants, _station = team_with("ants", "station")
    dud = accepted(make_team("bees"), not_starting_bot(tmp_path))
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.BOT_FAULT
    at_fault = game.first_at_fault if game.first_id == dud.pk else game.second_at_fault
    assert at_fault and "bees-v1 did not start" in game.end_reason
    assert game.score_for(dud.pk) == -750.0


def test_an_expired_claim_is_played_again_and_counted_once(small_ladder: None) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    settings = config.current()
    rng = random.Random(1)
    game = claim_next("dead-worker", settings, rng)
    assert game is not None and game.status == GameStatus.CLAIMED
    # The worker died: its lease runs out.
    later = timezone.now() + timedelta(seconds=lease_seconds() + 1)
    again = claim_next("live-worker", settings, rng, now=later)
    assert again is not None and again.pk == game.pk and again.attempts == 2
    assert "the worker playing it stopped" in again.end_reason
    # The dead worker's late result is refused; the live one's counts, once.
    assert not store_played(game, "dead-worker", PlayedGame(EndCause.PLAYED), settings)
    infra = PlayedGame(EndCause.ARENA_ERROR, detail="boom")
    assert store_played(again, "live-worker", infra, settings)
    assert Game.objects.get(pk=game.pk).status == GameStatus.QUEUED  # played again
    assert Game.objects.count() == 1


@pytest.mark.slow  # a local Dask cluster: a few seconds to start
def test_the_worker_plays_through_a_dask_cluster_too(small_ladder: None, tmp_path: Path) -> None:
    # The competition file's executor keys, which the finals obey too.
    team_with("ants", "station")
    team_with("bees", "folder")
    competition = tmp_path / "competition.toml"
    competition.write_text('executor = "dask"\nconcurrency = 2\n', encoding="utf-8")
    with override_settings(ARENA_COMPETITION_FILE=str(competition)):
        call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.DONE and game.hand_count == 2 * game.deals
    assert Match.objects.filter(source="ladder", hands_played=game.deals).count() == 2


def test_a_game_past_its_deadline_is_played_again_as_the_infrastructure_s(
    small_ladder: None,
) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    with override_settings(ARENA_LADDER={**SMALL, "game_deadline_s": 0.01}):
        call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.QUEUED and not (game.first_at_fault or game.second_at_fault)
    assert "ran past the executor's deadline: played again" in game.end_reason


def _settled(path: Path, text: str) -> Path:
    """``text`` at ``path``, written a minute ago (a settled file: see
    :data:`arena.server.competition.SETTLED_S`)."""
    path.write_text(text, encoding="utf-8")
    then = time.time() - 60.0
    os.utime(path, (then, then))
    return path


@pytest.mark.usefixtures("db")
def test_the_worker_takes_an_edited_competition_from_the_next_game_on(tmp_path: Path) -> None:
    # The file is live for the ladder too: a changed file gives new rules (and a new
    # executor); an unchanged one nothing; one half edited keeps the rules, said once.
    path = _settled(tmp_path / "competition.toml", "concurrency = 1\n")
    errors = io.StringIO()
    command = Command(stderr=errors)
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        first = current_competition()
        assert command._renewed(first) is None
        path.write_text("concurrency = 1\n", encoding="utf-8")  # just written: read again,
        assert command._renewed(first) is None  # but it says the same: the executor stays
        _settled(path, "concurrency = 3\n[game]\nbig_blind = 4\nsmall_blind = 2\n")
        renewed = command._renewed(first)
        assert renewed is not None
        competition, rules = renewed
        assert (rules.config.concurrency, rules.config.game.big_blind) == (3, 4)
        _settled(path, "concurrency = 0\n")
        assert command._renewed(competition) is None
        assert command._renewed(competition) is None
    assert errors.getvalue().count("the ladder keeps its rules") == 1
    assert "concurrency = 0" in errors.getvalue()


def test_the_ladder_plays_on_the_executor_the_competition_names(tmp_path: Path) -> None:
    # executor and concurrency: the keys the finals' tournament obeys, from the same file.
    competition = read_competition(_settled(tmp_path / "c.toml", "concurrency = 3\n"))
    rules = ladder_rules(competition, ArchiveLimits())
    with _executor(rules, tmp_path) as executor:
        assert isinstance(executor, LocalMatchExecutor) and executor.concurrency == 3


@pytest.mark.usefixtures("db")
def test_a_running_worker_plays_on_a_new_executor_once_the_file_has_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file says concurrency 1 when the worker starts and 3 at its next look: the
    # executor it then plays on is made from the new rules (the real one, recorded).
    before = read_competition(_settled(tmp_path / "before.toml", "concurrency = 1\n"))
    after = read_competition(_settled(tmp_path / "after.toml", "concurrency = 3\n"))
    readings = iter([before, after])
    monkeypatch.setattr(worker_module, "current_competition", lambda: next(readings, after))
    made: list[int] = []

    def recording(rules: LadderRules, root: Path) -> object:
        made.append(rules.config.worker_count())
        return _executor(rules, root)

    monkeypatch.setattr(worker_module, "_executor", recording)
    call_command("ladder_worker", "--once")  # nothing to play: one look, then it stops
    assert made == [1, 3]


class Clock:
    """The worker's ``time``, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.mark.usefixtures("db")
def test_a_worker_that_cannot_play_says_so_once_and_tries_again_less_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A competition file that became unreadable used to crash-loop the worker (restarted
    # every second, a message each time). Now it stays up: the problem said once, tries
    # after 1, 2, 4... seconds, and it plays again once the file is fixed.
    clock = Clock()
    monkeypatch.setattr(worker_module, "time", clock)
    path = _settled(tmp_path / "competition.toml", 'format = "bogus\n')
    errors = io.StringIO()
    command = Command(stderr=errors)
    command._retry = Backoff(first=1.0, most=60.0)
    command._retry_at = 0.0
    tries: list[float] = []
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        for _ in range(40):  # a look every quarter second for ten seconds
            before = command._retry_at
            assert command._start(tmp_path / "ladder") is None
            if command._retry_at != before:
                tries.append(clock.now)
            clock.now += 0.25
        assert [round(b - a, 2) for a, b in itertools.pairwise(tries)] == [1.0, 2.0, 4.0]
        assert errors.getvalue().count("the ladder cannot play here") == 1
        _settled(path, "concurrency = 1\n")
        clock.now += 60.0
        playing = command._start(tmp_path / "ladder")
    assert playing is not None and playing.rules.config.concurrency == 1
    worker_module._drop(playing.executor)
    assert errors.getvalue().endswith("the ladder can play again\n")
    assert command._retry.failures == 0


@pytest.mark.usefixtures("db")
def test_run_by_hand_a_worker_that_cannot_play_exits_1(tmp_path: Path) -> None:
    path = _settled(tmp_path / "competition.toml", "concurrency = 0\n")
    errors = io.StringIO()
    with override_settings(ARENA_COMPETITION_FILE=str(path)), pytest.raises(SystemExit) as ended:
        call_command("ladder_worker", "--once", stderr=errors)
    assert ended.value.code == 1 and "the ladder cannot play here" in errors.getvalue()


@pytest.mark.usefixtures("db")
def test_a_worker_without_its_cluster_says_it_cannot_reach_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreachable(rules: LadderRules, root: Path) -> object:
        raise ClusterError("no scheduler at tcp://nowhere:8786")

    monkeypatch.setattr(worker_module, "_executor", unreachable)
    errors = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("ladder_worker", "--games", "1", stderr=errors)
    assert "the ladder cannot reach its cluster: no scheduler" in errors.getvalue()


def test_a_game_s_progress_is_what_its_matches_and_builds_have_written(tmp_path: Path) -> None:
    root = tmp_path / "ladder"
    with LocalMatchExecutor(1, play_match) as executor:
        assert worker_module.game_progress(executor, root, 7) == (0, 0)  # nothing yet
        (root / "games" / "7").mkdir(parents=True)
        (root / "games" / "7" / "hands.jsonl").write_text("a hand\n")
        (root / "versions" / ".3-scratch").mkdir(parents=True)  # a build under way
        (root / "versions" / ".3-scratch" / "out.o").write_bytes(b"12345")
        (root / "versions" / "2").mkdir()
        (root / "versions" / "2" / "built.bin").write_bytes(b"old")  # done before: not counted
        assert worker_module.game_progress(executor, root, 7) == (2, 12)
        assert worker_module.game_progress(executor, root, 8) == (1, 5)  # only the build


def test_on_a_cluster_the_progress_always_differs_so_the_lease_is_kept() -> None:
    # The matches' files come back at their end: the lease is renewed while it waits.
    cluster = object()
    first = worker_module.game_progress(cluster, Path("/nonexistent"), 1)
    assert first != worker_module.game_progress(cluster, Path("/nonexistent"), 1)


@pytest.mark.usefixtures("db")
def test_a_worker_run_until_stopped_waits_for_a_usable_file_then_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Started by arena server run (no --once, no --games), a worker whose file cannot be
    # used does not exit: it looks again after its back-off and claims once it can.
    from arena.server.jobs import worker as loop

    monkeypatch.setattr(loop, "die_with_parent", lambda: None)  # not this test's process
    good = read_competition(_settled(tmp_path / "c.toml", "concurrency = 1\n"))
    readings = iter([OSError("c.toml: not valid TOML")])

    def reading() -> object:
        found = next(readings, good)
        if isinstance(found, Exception):
            raise found
        return found

    claims: list[str] = []

    def claim_and_stop(worker: str, *args: object, **options: object) -> None:
        claims.append(worker)
        os.kill(os.getpid(), signal.SIGTERM)  # as arena server run stops it
        return None

    monkeypatch.setattr(worker_module, "current_competition", reading)
    monkeypatch.setattr(worker_module, "claim_next", claim_and_stop)
    monkeypatch.setattr(worker_module, "RETRY_FIRST", 0.01)
    errors = io.StringIO()
    call_command("ladder_worker", "--poll", "0", stderr=errors)
    assert len(claims) == 1  # claimed only once it could play
    said = errors.getvalue()
    assert "the ladder cannot play here: c.toml: not valid TOML" in said
    assert "the ladder can play again" in said


def test_at_verbosity_2_the_worker_says_where_each_game_s_time_went(small_ladder: None) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    out = io.StringIO()
    call_command("ladder_worker", "--games", "1", verbosity=2, stdout=out)
    (line,) = [text for text in out.getvalue().splitlines() if "seconds:" in text]
    (game,) = Game.objects.all()
    assert line.startswith(f"ladder game {game.pk} seconds: ")
    figures = dict(pair.split("=") for pair in line.split("seconds: ")[1].split())
    times = {name: float(value) for name, value in figures.items()}
    # Each match's own time is part of the play, the play and the store part of the cycle;
    # what the worker added is the cycle less the matches. The game's two matches may run
    # side by side in the worker's pool (the competition's default concurrency), so their
    # summed time may pass the play's wall time, though never twice it. (Each figure is
    # rounded to the millisecond: a sum of three may pass the rounded cycle by up to 1.5 ms.)
    assert 0 < times["matches"] <= 2 * times["play"] + 0.002
    assert times["play"] <= times["cycle"] + 0.001
    assert times["claim"] + times["play"] + times["store"] <= times["cycle"] + 0.002
    assert times["added"] == pytest.approx(times["cycle"] - times["matches"], abs=0.002)


def test_at_the_default_verbosity_the_worker_writes_no_timings(small_ladder: None) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    out = io.StringIO()
    call_command("ladder_worker", "--games", "1", stdout=out)
    assert "seconds:" not in out.getvalue()


def test_a_stored_game_names_the_luck_estimator_and_its_api_shows_it(small_ladder: None) -> None:
    ants, station = team_with("ants", "station")
    team_with("bees", "folder")
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    # The estimator the matches ran, so a later change of estimator shows in the history.
    assert game.estimator == ESTIMATOR
    api = Client().get(f"/api/v1/ladder/versions/{station.pk}/",
                       HTTP_AUTHORIZATION=f"Bearer {make_token(ants)}")  # fmt: skip
    assert [row["estimator"] for row in api.json()["games"]] == [ESTIMATOR]


def test_a_game_no_match_finished_with_names_no_estimator(
    small_ladder: None, tmp_path: Path
) -> None:
    team_with("ants", "station")
    accepted(make_team("bees"), not_starting_bot(tmp_path))
    call_command("ladder_worker", "--games", "1")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.BOT_FAULT and game.estimator == ""


def test_the_site_s_pace_is_read_from_the_competition_file(tmp_path: Path) -> None:
    paced = read_competition(_settled(tmp_path / "c.toml", "[ladder]\ngames_per_hour = 12\n"))
    assert paced.games_per_hour == 12
    assert read_competition(_settled(tmp_path / "d.toml", "")).games_per_hour == 0  # flat out
    with pytest.raises(SettingsError, match=r"ladder\.games_per_hour.*-1"):
        read_competition(_settled(tmp_path / "e.toml", "[ladder]\ngames_per_hour = -1\n"))


def test_the_site_s_pace_waits_for_the_last_game_any_worker_started(
    small_ladder: None, tmp_path: Path
) -> None:
    # One pace for the whole site: the last game started by any worker (on any machine,
    # through the shared database) holds every worker back for 3600 / games_per_hour s.
    paced = read_competition(_settled(tmp_path / "c.toml", "[ladder]\ngames_per_hour = 12\n"))
    now = timezone.now()
    assert not site_paced(paced, now)  # no game yet: the first starts at once
    team_with("ants", "station")
    team_with("bees", "folder")
    call_command("ladder_worker", "--games", "1")  # another worker's game, played
    (game,) = Game.objects.all()
    Game.objects.filter(pk=game.pk).update(created=now)
    assert site_paced(paced, now + timedelta(seconds=299))  # 3600 / 12 = 300 s apart
    assert not site_paced(paced, now + timedelta(seconds=300))
    assert not site_paced(None, now)
    assert not site_paced(read_competition(_settled(tmp_path / "d.toml", "")), now)
    # A paced worker claims nothing while the pace says wait (--once: it stops) ...
    path = _settled(tmp_path / "live.toml", "[ladder]\ngames_per_hour = 1\n")
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        call_command("ladder_worker", "--once")
    assert Game.objects.count() == 1
    # ... and unpaced it plays the next at once: the pace alone held it back.
    _settled(path, "")
    with override_settings(ARENA_COMPETITION_FILE=str(path)):
        call_command("ladder_worker", "--games", "1")
    assert Game.objects.count() == 2
