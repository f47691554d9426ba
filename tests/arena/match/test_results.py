"""A match result (:mod:`arena.match.results`): what it measures and how it reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match.config import MatchConfig
from arena.match.results import MatchResult, PlayerResult
from engine.config import GameConfig
from tests.arena.scripted import (
    assert_chips_conserved,
    folder,
    min_raiser,
    play,
)


def test_results_measure_big_blinds_per_100_hands() -> None:
    config = MatchConfig(hand_count=10, seed=5, game=GameConfig(small_blind=5, big_blind=10))
    result = play([folder, min_raiser], config)
    assert_chips_conserved(result)
    for player in result.players:
        assert player.big_blinds_won == pytest.approx(player.chips_won / 10)
        assert player.big_blinds_per_100 == pytest.approx(player.chips_won / 10 * 10)
    ranked = result.ranked()
    assert ranked[0].chips_won >= ranked[1].chips_won
    assert ranked[0].place == 1


def test_the_stderr_file_and_bytes_read_back_and_are_none_in_older_files() -> None:
    player = PlayerResult(
        "p0", "alice", 0, 5, 10, 5.0, stderr_log="stderr/0-alice.log", stderr_bytes=123
    )
    data = player.to_dict()
    assert (data["stderr_log"], data["stderr_bytes"]) == ("stderr/0-alice.log", 123)
    assert PlayerResult.from_dict(data) == player
    del data["stderr_log"], data["stderr_bytes"]  # a results.json written before they existed
    old = PlayerResult.from_dict(data)
    assert (old.stderr_log, old.stderr_bytes) == (None, None)
    result = MatchResult("m", 1, "hands", 5, (player,))
    assert MatchResult.from_dict(result.to_dict()).players == (player,)


def test_in_memory_bots_have_no_stderr_file(tmp_path: Path) -> None:
    result = play([folder, min_raiser], MatchConfig(hand_count=2, seed=1), tmp_path)
    assert [(p.stderr_log, p.stderr_bytes) for p in result.players] == [(None, None)] * 2
    assert not (tmp_path / "stderr").exists()


def test_a_seat_without_a_stderr_file_writes_no_stderr_keys() -> None:
    data = PlayerResult("p0", "memory", 0, 1, 0, 0.0).to_dict()
    assert "stderr_log" not in data and "stderr_bytes" not in data
