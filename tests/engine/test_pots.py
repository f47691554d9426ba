"""Main and side pots from contributions; odd chips."""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from engine.pots import Pot, build_pots, split_pot


def test_three_way_all_in_side_pot_example() -> None:
    # A is all-in for 100, B and C bet 200 each.
    assert build_pots([100, 200, 200], [True, True, True]) == [
        Pot(300, (0, 1, 2)),
        Pot(200, (1, 2)),
    ]


def test_folded_players_chips_stay_in_the_pots_they_reached() -> None:
    # X folded after putting in 70; Y is all-in for 50; Z put in 100.
    assert build_pots([70, 50, 100], [False, True, True]) == [
        Pot(150, (1, 2)),
        Pot(70, (2,)),
    ]


def test_each_pot_is_won_only_by_players_who_contributed_to_it() -> None:
    pots = build_pots([10, 20, 30, 30], [True, True, True, True])
    assert [(p.amount, p.eligible) for p in pots] == [
        (40, (0, 1, 2, 3)),
        (30, (1, 2, 3)),
        (20, (2, 3)),
    ]


def test_chips_above_the_top_live_contribution_join_the_top_pot() -> None:
    assert build_pots([50, 80], [True, False]) == [Pot(130, (0,))]


def test_during_a_round_only_all_in_players_split_the_pot() -> None:
    contributions = [10, 4, 30]
    live = [True, True, True]
    assert build_pots(contributions, live, [False, True, False]) == [
        Pot(12, (0, 1, 2)),
        Pot(32, (0, 2)),
    ]
    assert build_pots([0, 0], [True, True], [False, False]) == []


def test_big_blind_ante_is_dead_money_in_the_main_pot_not_a_side_pot() -> None:
    # Seat 2 (the big blind) put in 250: a 100 ante and a 150 call all-in of seat 0's
    # 150; seat 1 folded its 50. The ante joins the main pot (450) instead of making a
    # 100 side pot that gave the big blind its own ante back (a main pot of 350).
    assert build_pots([150, 50, 250], [True, False, True], dead_money=[0, 0, 100]) == [
        Pot(450, (0, 2)),
    ]
    assert build_pots([150, 50, 250], [True, False, True]) == [Pot(350, (0, 2)), Pot(100, (2,))]


def test_a_player_in_for_dead_money_alone_may_win_only_the_dead_money() -> None:
    expected = [Pot(100, (0, 1, 2)), Pot(400, (0, 1))]
    assert build_pots([200, 200, 100], [True] * 3, dead_money=[0, 0, 100]) == expected
    during_round = build_pots(
        [200, 200, 100], [True] * 3, [False, False, True], dead_money=[0, 0, 100]
    )
    assert during_round == expected
    assert build_pots([5, 0], [True, True], dead_money=[5, 0]) == [Pot(5, (0, 1))]
    assert build_pots([9, 9], [True, True], dead_money=[0, 0]) == [Pot(18, (0, 1))]


@given(
    st.lists(st.integers(0, 500), min_size=2, max_size=10),
    st.lists(st.booleans(), min_size=10, max_size=10),
    st.integers(0, 9),
    st.integers(0, 100),
)
def test_dead_money_is_in_the_main_pot_open_to_every_live_player(
    contributions: list[int],
    alive: list[bool],
    poster: int,
    ante: int,
) -> None:
    live = alive[: len(contributions)]
    live[0] = True
    poster %= len(contributions)
    contributions[poster] += ante
    dead = [0] * len(contributions)
    dead[poster] = ante
    pots = build_pots(contributions, live, dead_money=dead)
    layered = build_pots([c - d for c, d in zip(contributions, dead, strict=True)], live)
    assert sum(p.amount for p in pots) == sum(p.amount for p in layered) + ante
    if ante:
        assert pots[0].eligible == tuple(i for i, a in enumerate(live) if a)
    for before, after in itertools.pairwise(pots):
        assert set(after.eligible) < set(before.eligible)


def test_split_pot_odd_chips_go_to_the_first_winners_in_order() -> None:
    assert split_pot(10, [5, 1, 3]) == [(5, 4), (1, 3), (3, 3)]
    assert split_pot(9, [2, 0]) == [(2, 5), (0, 4)]
    assert split_pot(8, [4]) == [(4, 8)]


@given(
    st.lists(st.integers(0, 500), min_size=2, max_size=10),
    st.lists(st.booleans(), min_size=10, max_size=10),
)
def test_pots_hold_every_chip_and_never_repeat_the_same_players(
    contributions: list[int],
    alive: list[bool],
) -> None:
    live = alive[: len(contributions)]
    live[0] = True
    pots = build_pots(contributions, live)
    if any(c > 0 for c, a in zip(contributions, live, strict=True) if a):
        assert sum(p.amount for p in pots) == sum(contributions)
    for before, after in itertools.pairwise(pots):
        assert set(after.eligible) < set(before.eligible)
    for pot in pots:
        assert all(live[i] for i in pot.eligible)


@given(st.integers(0, 10_000), st.integers(1, 10))
def test_split_pot_shares_add_up_and_differ_by_at_most_one(amount: int, count: int) -> None:
    shares = [chips for _, chips in split_pot(amount, list(range(count)))]
    assert sum(shares) == amount and max(shares) - min(shares) <= 1
    assert shares == sorted(shares, reverse=True)


def reference_pots(
    contributions: list[int], live: list[bool], all_in: list[bool] | None
) -> list[Pot]:
    """build_pots's layering without its short cuts (no dead money)."""
    if all_in is None:
        levels = sorted(
            {c for c, alive in zip(contributions, live, strict=True) if alive and c > 0}
        )
    else:
        levels = sorted(
            {c for c, alive, out in zip(contributions, live, all_in, strict=True) if alive and out}
        )
        top_level = max(contributions, default=0)
        if not levels or levels[-1] < top_level:
            levels.append(top_level)
        levels = [level for level in levels if level > 0]
    pots = []
    previous = 0
    for number, level in enumerate(levels, start=1):
        top = number == len(levels)
        amount = 0
        for c in contributions:
            upper = c if top else min(c, level)
            if upper > previous:
                amount += upper - previous
        eligible = tuple(
            i
            for i, c in enumerate(contributions)
            if live[i] and (c >= level or (all_in is not None and not all_in[i]))
        )
        pots.append(Pot(amount, eligible))
        previous = level
    return pots


def test_pots_with_the_single_layer_short_cut_equal_the_plain_layering() -> None:
    rng = random.Random(11)
    for _ in range(5000):
        count = rng.randint(2, 6)
        contributions = [
            rng.choice([0, 1, 5, 10, 10, 20, rng.randint(0, 50)]) for _ in range(count)
        ]
        live = [rng.random() < 0.8 for _ in range(count)]
        all_in = rng.choice([None, [rng.random() < 0.3 for _ in range(count)], [False] * count])
        assert build_pots(contributions, live, all_in) == reference_pots(
            contributions, live, all_in
        )
