"""Results in mbb/hand and duplicate deals (:mod:`arena.stats.units`), on hand-built outcomes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from arena.stats.units import duplicate_units, mbb, plain_units
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome


def outcome(
    match_id: str,
    bots: Sequence[str],
    hands: Sequence[tuple[int, int, tuple[int, ...]]],
    **changes: Any,
) -> MatchOutcome:
    """A match seating ``bots`` in seat order, with (hand number, big blind, nets) hands."""
    return MatchOutcome(
        match_id=match_id,
        seats=tuple(
            SeatOutcome(seat_index=i, bot=bot, chips_won=0, place=0, hands_played=len(hands))
            for i, bot in enumerate(bots)
        ),
        hands=tuple(HandSummary(number, big_blind, nets) for number, big_blind, nets in hands),
        ended_reason="hands_played",
        hands_path=None,
        duration_s=0.0,
        **changes,
    )


# -- mbb ----------------------------------------------------------------------------------


def test_mbb_is_a_thousandth_of_the_hands_own_big_blind() -> None:
    assert mbb(2, 2) == 1000.0
    assert mbb(-1, 2) == -500.0
    assert mbb(15, 100) == 150.0
    assert mbb(0, 50) == 0.0


@pytest.mark.parametrize(
    ("chips", "big_blind", "message"),
    [
        (1, 0, "big_blind must be a positive integer, got 0"),
        (1, -2, "big_blind must be a positive integer, got -2"),
        (1, 2.0, "big_blind must be a positive integer, got 2.0"),
        (1, True, "big_blind must be a positive integer, got True"),
        (1.5, 2, "chips must be an integer, got 1.5"),
        (False, 2, "chips must be an integer, got False"),
    ],
)
def test_mbb_rejects_bad_values_by_name(chips: Any, big_blind: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        mbb(chips, big_blind)


# -- plain units ----------------------------------------------------------------------------


def test_plain_units_are_each_hand_on_its_own_in_hand_number_order() -> None:
    match = outcome("m", ["ann", "bob"], [(2, 2, (-1, 1)), (1, 4, (6, -6))])
    assert plain_units(match) == [
        {"ann": 1500.0, "bob": -1500.0},
        {"ann": -500.0, "bob": 500.0},
    ]


def test_plain_units_read_nets_by_seat_index_not_by_seat_order() -> None:
    match = outcome("m", ["ann", "bob"], [(1, 2, (4, -4))])
    swapped = replace(match, seats=tuple(reversed(match.seats)))
    assert plain_units(swapped) == [{"ann": 2000.0, "bob": -2000.0}]


def test_an_empty_seat_between_bots_nets_nothing_and_is_skipped() -> None:
    match = outcome("m", ["ann", "bob"], [(1, 2, (3, 0, -3))])
    seats = (match.seats[0], replace(match.seats[1], seat_index=2))
    assert plain_units(replace(match, seats=seats)) == [{"ann": 1500.0, "bob": -1500.0}]


# -- duplicate units ------------------------------------------------------------------------


def test_heads_up_duplicate_deal_is_the_mean_of_both_seats() -> None:
    # Deal 1: ann wins 4 chips as seat 0, then loses 2 with bob's cards as seat 1.
    first = outcome("ab", ["ann", "bob"], [(1, 2, (4, -4)), (2, 2, (-1, 1))])
    second = outcome("ba", ["bob", "ann"], [(1, 2, (2, -2)), (2, 2, (-2, 2))])
    units = duplicate_units([first, second])
    assert units == [
        {"ann": (2000.0 + -1000.0) / 2, "bob": (-2000.0 + 1000.0) / 2},
        {"ann": (-500.0 + 1000.0) / 2, "bob": (500.0 + -1000.0) / 2},
    ]


def test_duplicate_deal_weighs_each_hand_by_its_own_big_blind() -> None:
    first = outcome("ab", ["ann", "bob"], [(1, 2, (2, -2))])
    second = outcome("ba", ["bob", "ann"], [(1, 10, (0, 0))])
    assert duplicate_units([first, second]) == [{"ann": 500.0, "bob": -500.0}]


def test_ring_duplicate_deal_averages_every_rotation() -> None:
    bots = ["a", "b", "c"]
    rotations = [
        outcome("r0", ["a", "b", "c"], [(1, 2, (6, -2, -4))]),
        outcome("r1", ["b", "c", "a"], [(1, 2, (6, -2, -4))]),
        outcome("r2", ["c", "a", "b"], [(1, 2, (0, 2, -2))]),
    ]
    (unit,) = duplicate_units(rotations)
    assert set(unit) == set(bots)
    assert unit["a"] == pytest.approx((3000.0 - 2000.0 + 1000.0) / 3)
    assert unit["b"] == pytest.approx((-1000.0 + 3000.0 - 1000.0) / 3)
    assert unit["c"] == pytest.approx((-2000.0 - 1000.0 + 0.0) / 3)
    assert sum(unit.values()) == pytest.approx(0.0)


def test_deals_that_not_every_arrangement_reached_are_dropped() -> None:
    # The swapped match was cut short after hand 2: deal 3 was seen from one side only.
    first = outcome("ab", ["ann", "bob"], [(1, 2, (2, -2)), (2, 2, (1, -1)), (3, 2, (9, -9))])
    second = outcome("ba", ["bob", "ann"], [(2, 2, (1, -1)), (1, 2, (-2, 2))])
    units = duplicate_units([first, second])
    assert units == [{"ann": 1000.0, "bob": -1000.0}, {"ann": 0.0, "bob": 0.0}]


def test_a_block_of_one_match_is_its_plain_units() -> None:
    match = outcome("m", ["ann", "bob"], [(1, 2, (2, -2)), (2, 2, (-4, 4))])
    assert duplicate_units([match]) == plain_units(match)


def test_the_same_block_gives_the_same_bits() -> None:
    first = outcome("ab", ["a", "b", "c"], [(n, 3, (n, 1, -n - 1)) for n in range(1, 30)])
    second = outcome("ba", ["c", "a", "b"], [(n, 7, (2, -n, n - 2)) for n in range(1, 30)])
    assert duplicate_units([first, second]) == duplicate_units([first, second])


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ([], "a duplicate block needs at least one match, got []"),
        ("ab", "a duplicate block needs at least one match, got 'ab'"),
        (
            [
                outcome("ab", ["ann", "bob"], [(1, 2, (1, -1))]),
                outcome("bc", ["bob", "cat"], [(1, 2, (1, -1))]),
            ],
            "match 'bc' seats ['bob', 'cat'], but the block's first match seats ['ann', 'bob']",
        ),
        (
            [outcome("x", ["ann", "bob"], [(1, 2, (1, -1))], error="bot never started")],
            "match 'x' did not end normally and does not count",
        ),
        (
            [outcome("x", ["ann", "ann"], [(1, 2, (1, -1))])],
            "match 'x' seats bot 'ann' at seat 1, but that bot or seat is taken",
        ),
        ([outcome("x", ["ann"], [(1, 2, (0,))])], "match 'x' has 1 seat(s), needs 2 or more"),
        (
            [outcome("x", ["ann", "bob"], [(1, 2, (1, -1)), (1, 2, (0, 0))])],
            "match 'x' hand 1: the hand number is not an integer or comes twice",
        ),
        (
            [outcome("x", ["ann", "bob"], [(1, 2, (1,))])],
            "match 'x' hand 1: 1 nets for seat indexes up to 1",
        ),
        (
            [outcome("x", ["ann", "bob"], [(1, 2, (1, 1))])],
            "match 'x' hand 1: nets (1, 1) do not add up to 0",
        ),
        (
            [outcome("x", ["ann", "bob"], [(1, 2, (0.5, -0.5))])],  # type: ignore[list-item]
            "match 'x' hand 1: nets (0.5, -0.5) are not all integers",
        ),
        (
            [outcome("x", ["ann", "bob"], [(1, 0, (1, -1))])],
            "match 'x' hand 1: big_blind must be a positive integer, got 0",
        ),
    ],
)
def test_a_bad_block_is_named(block: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        duplicate_units(block)


def test_a_bad_seat_index_is_named() -> None:
    match = outcome("x", ["ann", "bob"], [(1, 2, (1, -1))])
    seats = (replace(match.seats[0], seat_index=-1), match.seats[1])
    with pytest.raises(ValueError, match=re.escape("match 'x': bad seat index -1 (bot 'ann')")):
        plain_units(replace(match, seats=seats))
