"""Each player's lean (:mod:`arena.luck.leans`): counted on its earlier hands, 1 for a bot
that bets exactly its made hands, 0 for one that never bets, 0 until it has been seen."""

from __future__ import annotations

import copy

import pytest

from arena.luck import LuckError
from arena.luck.leans import MIN_STREETS, BettingLeans
from tests.arena.luck.play import random_record


def _observed(seeds: range, policy: str) -> BettingLeans:
    leans = BettingLeans()
    for seed in seeds:
        leans.observe(random_record(seed, stacks=(400,), policy=policy)["history"])
    return leans


def test_a_bot_that_bets_exactly_its_made_hands_leans_one_and_a_calling_station_zero() -> None:
    leans = _observed(range(60), "made")
    assert leans.lean("p0") == 1.0
    assert leans.lean("p1") == 0.0
    history = random_record(0, stacks=(400,))["history"]
    assert leans.leans(history) == {"p0": 1.0}  # only the players above 0


def test_random_betting_leans_little() -> None:
    # Random play bets about as often with a made hand as without: its lean is small.
    leans = _observed(range(300), "random")
    assert 0.0 <= leans.lean("p0") < 0.3


def test_nobody_leans_before_enough_streets_of_each_kind() -> None:
    leans = BettingLeans()
    assert leans.lean("p0") == 0.0
    seen = 0
    for seed in range(200):
        before = leans.lean("p0")
        leans.observe(random_record(seed, stacks=(400,), policy="made")["history"])
        counts = leans._counts.get("p0", [0, 0, 0, 0])
        if counts[0] < MIN_STREETS or counts[2] < MIN_STREETS:
            assert leans.lean("p0") == 0.0
        elif before == 0.0:
            seen += 1
    assert seen == 1  # it began to lean exactly once it had seen enough


def test_draw_poker_hands_count_nothing() -> None:
    leans = BettingLeans()
    for seed in range(20):
        leans.observe(random_record(seed, variant="five_card_draw")["history"])
    assert leans._counts == {}


def test_the_same_hands_give_the_same_leans() -> None:
    first, second = _observed(range(80), "random"), _observed(range(80), "random")
    assert first.lean("p0") == second.lean("p0") and first._counts == second._counts


@pytest.mark.parametrize(
    "damage",
    [
        lambda h: h.pop("events"),
        lambda h: h["events"].append({"type": "street_dealt", "board": ["Zz"]}),
        lambda h: h.__setitem__("seats", [{"seat_index": 0}]),
    ],
)
def test_a_history_that_cannot_be_read_is_a_clear_error_and_counts_nothing(damage) -> None:  # type: ignore[no-untyped-def]
    history = copy.deepcopy(random_record(3, stacks=(400,), policy="made")["history"])
    damage(history)
    leans = BettingLeans()
    with pytest.raises(LuckError, match="cannot count a hand's streets"):
        leans.observe(history)
    assert leans._counts == {}
    with pytest.raises(LuckError, match="seats must be a list"):
        leans.leans({"seats": None})
