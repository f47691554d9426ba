"""The finals' freeze, entrants and pairs (:mod:`arena.ladder.finals`)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arena.ladder.finals import finals_entrants, finals_pairs, is_frozen
from arena.ladder.games import GameResult
from arena.ladder.ratings import fit
from arena.ladder.sums import pair_sums
from arena.tournament.config import BotEntry, TournamentConfig
from arena.tournament.plan import groups


def test_uploads_freeze_at_the_deadline() -> None:
    assert not is_frozen(now_s=99.9, deadline_s=100.0)
    assert is_frozen(now_s=100.0, deadline_s=100.0)
    assert not is_frozen(now_s=1e12, deadline_s=None)
    with pytest.raises(ValueError, match="times must be numbers"):
        is_frozen(now_s=math.nan, deadline_s=1.0)


def test_each_teams_active_version_enters_in_the_ladders_order() -> None:
    games = [GameResult("b-v2", "a-v1", 50.0 + d, 0.0, 200) for d in (-5.0, 5.0)]
    standings = fit(pair_sums(games))
    active = {"team-a": "a-v1", "team-b": "b-v2", "team-c": "c-v1"}
    assert finals_entrants(active, standings) == ("b-v2", "a-v1", "c-v1")
    assert finals_entrants(active) == ("a-v1", "b-v2", "c-v1")


def test_the_finals_need_two_teams_each_with_its_own_version() -> None:
    with pytest.raises(ValueError, match="two or more teams"):
        finals_entrants({"team-a": "a-v1"})
    with pytest.raises(ValueError, match="share an active version"):
        finals_entrants({"team-a": "x", "team-b": "x"})


def test_the_finals_pairs_are_the_tournament_plans_round_robin_pairs() -> None:
    entrants = ("cat-v4", "ann-v2", "bob-v1", "dan-v9")
    bots = tuple(BotEntry(name, Path(f"{name}.toml")) for name in entrants)
    planned = groups(TournamentConfig(bots=bots, deals=100))
    assert finals_pairs(entrants) == planned
    assert len(planned) == 6
