"""A match result (:mod:`arena.match.results`): what it measures and how it reads back."""

from __future__ import annotations

import pytest

from arena.match.config import MatchConfig
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
