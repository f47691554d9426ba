"""The statistics on real engine hands: known strengths come out with the right sign, equal
bots are covered by the interval at the advertised rate, and duplicate deals cut the
variance. The hands are played by :mod:`tests.arena.stats.simulate` (policies as plain
functions, stacks reset every hand) and reach the statistics as real ``MatchOutcome``
values, through :func:`~arena.stats.units.duplicate_units`.
"""

from __future__ import annotations

import statistics

import pytest

from arena.stats.intervals import estimate
from arena.stats.sprt import Sprt
from arena.stats.tables import crosstable, leaderboard
from arena.stats.units import duplicate_units, plain_units
from arena.store.outcome import MatchOutcome
from tests.arena.stats.simulate import (
    always_fold,
    calling_station,
    duplicate_block,
    random_bot,
    threshold_bot,
)


def test_a_folder_loses_significantly_to_a_calling_station_over_duplicate_deals() -> None:
    block = duplicate_block([("folder", always_fold), ("station", calling_station)], 7, 200)
    units = duplicate_units(block)
    assert len(units) == 200
    folder = estimate([unit["folder"] for unit in units])
    station = estimate([unit["station"] for unit in units])
    assert folder.is_significant and folder.sign == "-" and folder.high < 0
    assert station.is_significant and station.sign == "+" and station.low > 0
    # Heads-up what one wins the other loses, deal by deal.
    assert station.mean == pytest.approx(-folder.mean)
    board = leaderboard(
        units,
        chips={seat.bot: seat.chips_won for seat in block[0].seats},
        hands={"folder": 400, "station": 400},
    )
    assert [row.bot for row in board.rows] == ["station", "folder"]
    table = crosstable({("station", "folder"): [unit["station"] for unit in units]})
    cell = table.cell("folder", "station")
    assert cell is not None and cell.mark == "--"
    assert Sprt(0.0, 50.0).decide([unit["station"] for unit in units]).status == "H1"


def test_a_duplicate_block_plays_each_deal_with_the_seats_swapped() -> None:
    first, second = duplicate_block([("a", threshold_bot), ("b", calling_station)], 3, 20)
    assert [seat.bot for seat in first.seats] == ["a", "b"]
    assert [seat.bot for seat in second.seats] == ["b", "a"]
    units = duplicate_units([first, second])
    for unit, one, other in zip(units, first.hands, second.hands, strict=True):
        # A's result in the deal: the mean of A as seat 0 and A as seat 1.
        expected = (one.nets[0] + other.nets[1]) / 2 * 1000 / 2
        assert unit["a"] == pytest.approx(expected)


def test_a_ring_block_rotates_every_bot_through_every_seat() -> None:
    bots = [("thr", threshold_bot), ("station", calling_station), ("folder", always_fold)]
    block = duplicate_block(bots, 5, 100)
    assert len(block) == 3
    seats_of = {name: {[s.bot for s in m.seats].index(name) for m in block} for name, _ in bots}
    assert all(seats == {0, 1, 2} for seats in seats_of.values())
    units = duplicate_units(block)
    assert len(units) == 100
    # Every rotation is zero-sum, so each deal's means are too.
    assert all(sum(unit.values()) == pytest.approx(0.0, abs=1e-9) for unit in units)
    board = leaderboard(units, chips={}, hands={})
    assert [(row.bot, row.estimate.sign) for row in board.rows] == [
        ("thr", "+"),
        ("folder", "-"),
        ("station", "-"),
    ]


def _copies_block(seed: int, deals: int) -> list[MatchOutcome]:
    """A random bot against a copy of itself (independent generators), one duplicate block."""
    return duplicate_block(
        [("copy-1", random_bot(f"{seed}-1")), ("copy-2", random_bot(f"{seed}-2"))], seed, deals
    )


def test_a_bot_against_its_copy_is_covered_at_about_the_advertised_rate() -> None:
    seeds = 200
    covered = 0
    for seed in range(seeds):
        result = estimate([unit["copy-1"] for unit in duplicate_units(_copies_block(seed, 50))])
        covered += result.low <= 0.0 <= result.high
    # 95% advertised: with 200 tournaments the rate lands within [0.90, 0.99] unless the
    # interval is wrong (a normal quantile, a wrong spread or correlated units would show).
    assert 0.90 <= covered / seeds <= 0.99


@pytest.mark.slow
def test_a_bot_against_its_copy_is_covered_at_the_advertised_rate_in_a_big_sweep() -> None:
    seeds = 600
    covered = {0.95: 0, 0.99: 0}
    for seed in range(10_000, 10_000 + seeds):
        values = [unit["copy-1"] for unit in duplicate_units(_copies_block(seed, 50))]
        for confidence in covered:
            result = estimate(values, confidence)
            covered[confidence] += result.low <= 0.0 <= result.high
    for confidence, count in covered.items():
        # Three binomial standard deviations either side of the advertised rate.
        margin = 3 * (confidence * (1 - confidence) / seeds) ** 0.5
        assert confidence - margin <= count / seeds <= confidence + margin, confidence


def test_duplicate_deals_have_lower_variance_than_plain_hands() -> None:
    bots = [("thr", threshold_bot), ("station", calling_station)]
    deals = 1500
    block = duplicate_block(bots, 11, deals)
    duplicate = [unit["thr"] for unit in duplicate_units(block)]
    plain = [unit["thr"] for match in block for unit in plain_units(match)]
    # The same pair on other cards in the swapped seats: two hands per unit as well, but
    # the cards do not cancel. The comparison that counts is at equal hands played, since
    # a mean of two independent hands already halves the variance.
    other = duplicate_block(bots, 12, deals)
    unpaired = [
        (one["thr"] + two["thr"]) / 2
        for one, two in zip(plain_units(block[0]), plain_units(other[1]), strict=True)
    ]
    duplicate_variance = statistics.variance(duplicate)
    plain_variance = statistics.variance(plain)
    unpaired_variance = statistics.variance(unpaired)
    assert duplicate_variance < 0.7 * plain_variance
    # Per hand played (each unit costs two hands): still clearly lower.
    assert 2 * duplicate_variance < 0.75 * plain_variance
    assert duplicate_variance < 0.75 * unpaired_variance
    # The control: pairing hands without shared cards gains nothing beyond the halving.
    assert 0.8 < 2 * unpaired_variance / plain_variance < 1.25
