"""The estimator's rules on hands built to show them: all-in run-outs, folds, seats sitting
out, calling stations (known EV 0) and the paired null test."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from arena.luck import estimate_hand
from engine.actions import Action, Call, Check, RaiseTo
from engine.cards import FULL_DECK, Card, parse_cards
from engine.config import GameConfig
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history
from tests.arena.luck.play import random_record

_HOLES = parse_cards("As Kh Qd Qc")  # dealt one at a time: seat 1 gets As Qd, seat 0 Kh Qc
_FLOP = parse_cards("7s 8d 2c")


def _record(board: list[Card], actions: list[Action], stacks: tuple[int, int] = (100, 100)):  # type: ignore[no-untyped-def]
    """A heads-up hand dealt from a deck whose board is ``board`` (burn cards between)."""
    used = set(_HOLES) | set(board)
    rest = [card for card in FULL_DECK if card not in used]
    burns = rest[:3]
    order = [*_HOLES, burns[0], *board[:3], burns[1], board[3], burns[2], board[4], *rest[3:]]
    seats = [SeatSetup(0, "a", stacks[0]), SeatSetup(1, "b", stacks[1])]
    hand = Hand.start(
        GameConfig(small_blind=1, big_blind=2), seats, button_index=0, deck=Deck(order)
    )
    for action in actions:
        hand.act(action)
    assert hand.is_over
    return {"decisions": [], "history": hand_to_history(hand, seed="all-in")}


def _run_outs(fixed: list[Card], every: int) -> list[list[Card]]:
    pool = [c for c in FULL_DECK if c not in set(_HOLES) | set(fixed)]
    missing = 5 - len(fixed)
    return [fixed + list(cards) for cards in itertools.combinations(pool, missing)][::every]


def test_all_in_on_the_flop_removes_all_run_out_variance() -> None:
    # Button (seat 0, small blind) calls, the big blind checks; on the flop the big blind
    # moves all-in and is called: the turn and river decide nothing any more.
    actions: list[Action] = [Call(), Check(), RaiseTo(98), Call()]
    results = [estimate_hand(_record(board, actions)) for board in _run_outs(_FLOP, 7)]
    raws = {luck.raw for luck in results}
    assert len(raws) > 1  # the run-outs did change who won
    first = results[0].adjusted
    for luck in results:
        assert luck.adjusted == pytest.approx(first, abs=1e-9)


def test_all_in_before_the_flop_removes_all_run_out_variance() -> None:
    # All-in pre-flop: the (sampled) pre-flop equity is the same for every board, so the
    # adjusted result is too.
    actions: list[Action] = [RaiseTo(100), Call()]
    pool = [c for c in FULL_DECK if c not in set(_HOLES)]
    boards = [random.Random(seed).sample(pool, 5) for seed in range(30)]
    results = [estimate_hand(_record(board, actions)) for board in boards]
    assert len({luck.raw for luck in results}) > 1
    for luck in results:
        assert luck.adjusted == pytest.approx(results[0].adjusted, abs=1e-9)


def test_a_seat_not_dealt_in_has_nothing_adjusted() -> None:
    record = random_record(4, seat_count=3)
    history = record["history"]
    history["seats"].append(
        {"seat_index": 3, "player_id": "p3", "stack": 100, "is_sitting_out": True}
    )
    luck = estimate_hand(record)
    assert luck.raw[3] == 0 and luck.adjusted[3] == 0.0


def _calling_stations(hands: int) -> tuple[list[float], list[float]]:
    raw, adjusted = [], []
    for seed in range(hands):
        luck = estimate_hand(random_record(seed, seat_count=2, stacks=(200,), policy="call"))
        raw.append(float(luck.raw[0]))
        adjusted.append(luck.adjusted[0])
    return raw, adjusted


def test_two_calling_stations_have_ev_zero_and_the_adjusted_spread_collapses() -> None:
    raw, adjusted = _calling_stations(150)
    spread_raw, spread_adjusted = statistics.stdev(raw), statistics.stdev(adjusted)
    # All of a calling station's result is card luck but the pre-flop call, made knowing
    # the cards: the adjusted spread is a small fraction of the raw one.
    assert spread_adjusted < 0.3 * spread_raw
    error = spread_adjusted / math.sqrt(len(adjusted))
    assert abs(statistics.fmean(adjusted)) < 4 * error


#: Leans for the null tests' players: seat 0 leans fully, seat 1 a little (the made-hand
#: term is then in every test of the mean; any fixed leans keep it zero-mean).
NULL_LEANS = {"p0": 1.0, "p1": 0.4}


def _null_z(seeds: range, seat_count: int) -> float:
    """z of the mean of adjusted - raw for seat 0 over random hands (must be zero-mean)."""
    differences = [
        estimate_hand(
            random_record(seed, seat_count=seat_count, mixed=seed % 2 == 1), None, NULL_LEANS
        ).luck[0]
        for seed in seeds
    ]
    return statistics.fmean(differences) / (statistics.stdev(differences) / math.sqrt(len(seeds)))


def test_adjusted_minus_raw_has_mean_zero_over_random_hands() -> None:
    # The paired null test on one fixed set of hands (deterministic: it cannot flake).
    assert abs(_null_z(range(160), 3)) < 3.5


@pytest.mark.slow
def test_adjusted_minus_raw_is_significant_about_five_percent_of_the_time() -> None:
    batches = 150
    significant = sum(
        abs(_null_z(range(batch * 60, batch * 60 + 60), 2 + batch % 2)) > 1.96
        for batch in range(batches)
    )
    # 5% of 150 is 7.5; a binomial 99.9% range is about 1..17.
    assert 1 <= significant <= 17


def _duplicate_units(deals: range) -> list[float]:
    """Random play against itself, each deal twice with the seats swapped (other dice):
    the first player's mean adjusted result per deal (it sits in seat 0, then seat 1)."""
    units = []
    for deal in deals:
        first = estimate_hand(random_record(deal, stacks=(200,), dice=1)).adjusted[0]
        second = estimate_hand(random_record(deal, stacks=(200,), dice=2)).adjusted[1]
        units.append((first + second) / 2)
    return units


def _covers_zero(units: list[float]) -> bool:
    half_width = 1.96 * statistics.stdev(units) / math.sqrt(len(units))
    return abs(statistics.fmean(units)) <= half_width


def test_a_player_against_itself_under_duplicate_deals_has_adjusted_ev_zero() -> None:
    units = _duplicate_units(range(80))
    error = statistics.stdev(units) / math.sqrt(len(units))
    assert abs(statistics.fmean(units)) < 3.5 * error


@pytest.mark.slow
def test_the_adjusted_interval_covers_the_true_ev_about_95_percent_of_the_time() -> None:
    matches = 150
    covered = sum(
        _covers_zero(_duplicate_units(range(m * 30, m * 30 + 30))) for m in range(matches)
    )
    # 95% of 150 is 142.5; with 30 units a t interval is a little wider than 1.96 SE, so a
    # 1.96 interval covers slightly less. A binomial 99.9% range around 0.94 is 131..149.
    assert 130 <= covered <= 149
