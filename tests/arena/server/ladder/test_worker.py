"""The ladder's worker with real bots (few deals): it plays a queued game and stores its
result once, fits the ratings, shows a bot that does not start as that bot's forfeit, and
a claim whose lease expired is played again and counted once."""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from arena.ladder.ends import EndCause
from arena.server.jobs.lease import lease_seconds
from arena.server.ladder import config
from arena.server.ladder.models import Game, GameStatus, Rating
from arena.server.ladder.play import PlayedGame
from arena.server.ladder.queue import claim_next, store_played
from arena.server.site.models import LeaderboardRow, Match
from tests.arena.server.factories import make_team
from tests.arena.server.ladder.conftest import SMALL, accepted, not_starting_bot, team_with


def test_the_worker_plays_a_game_stores_it_once_and_rates_both(small_ladder: None) -> None:
    _ants, station = team_with("ants", "station")
    _bees, folder = team_with("bees", "folder")
    call_command("ladder_worker", "--games", "1", "--concurrency", "2")
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
    call_command("ladder_worker", "--games", "1", "--concurrency", "2")
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
def test_the_worker_plays_through_a_dask_cluster_too(small_ladder: None) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    call_command("ladder_worker", "--games", "1", "--executor", "dask", "--concurrency", "2")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.DONE and game.hand_count == 2 * game.deals
    assert Match.objects.filter(source="ladder", hands_played=game.deals).count() == 2


def test_a_game_past_its_deadline_is_played_again_as_the_infrastructure_s(
    small_ladder: None,
) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    with override_settings(ARENA_LADDER={**SMALL, "game_deadline_s": 0.01}):
        call_command("ladder_worker", "--games", "1", "--concurrency", "2")
    (game,) = Game.objects.all()
    assert game.status == GameStatus.QUEUED and not (game.first_at_fault or game.second_at_fault)
    assert "ran past the executor's deadline: played again" in game.end_reason
