"""Ring tables in the ladder's pure layer: a table's result, its pair comparisons and their
weight, a table built from its block, and forfeits at a table (:mod:`arena.ladder.games`,
:mod:`arena.ladder.ends`, :mod:`arena.ladder.ratings`)."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ladder.ends import EndAction, EndCause, classify_end, forfeit, forfeit_table
from arena.ladder.games import GameResult, TableResult, table_from_block
from arena.ladder.ratings import fit
from arena.ladder.sums import pair_sums
from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome

NAMES = [f"b{index}" for index in range(10)]


def test_a_tables_pair_comparison_is_n_minus_1_over_n_of_the_difference_weighing_2_over_n() -> None:
    table = TableResult(("ann", "bob", "cat", "dan"), (40.0, 0.0, -10.0, -30.0), (4.0,) * 4, 400)
    games = table.pairwise()
    assert [(g.first, g.second) for g in games] == list(itertools.combinations(table.bots, 2))
    assert games[0].adjusted_mbb == pytest.approx(3 / 4 * 40.0)
    assert games[2].adjusted_mbb == pytest.approx(3 / 4 * 70.0)
    assert all(g.raw_mbb == 0.0 and g.weight == 0.5 and g.hand_count == 400 for g in games)
    assert table.score_for("cat") == -10.0 and table.raw_for("dan") == 4.0


def test_a_two_bot_tables_one_comparison_is_the_heads_up_game() -> None:
    table = TableResult(("ann", "bob"), (35.0, -35.0), (-120.0, 120.0), 200, is_rated=False)
    assert table.pairwise() == (
        GameResult("ann", "bob", 35.0, -120.0, 200, is_rated=False, weight=1.0),
    )


def test_the_pair_comparisons_estimate_the_strength_differences_without_bias() -> None:
    # Expected scores at a table: a strength less the others' mean strength.
    strengths = (90.0, 30.0, -20.0, -100.0, 0.0)
    n = len(strengths)
    expected = tuple(s - (sum(strengths) - s) / (n - 1) for s in strengths)
    table = TableResult(tuple(NAMES[:n]), expected, expected, 100)
    for game in table.pairwise():
        i, j = NAMES.index(game.first), NAMES.index(game.second)
        assert game.adjusted_mbb == pytest.approx(strengths[i] - strengths[j])


@pytest.mark.parametrize("n", range(2, 11))
def test_the_2_over_n_weight_makes_the_pairs_information_the_tables(n: int) -> None:
    # The centring model: x = A s + e, A_ab = 1 if a == b else -1/(n-1), e independent with
    # variance v per seat; the table's information about s is A^T A / v. Each comparison
    # (n-1)/n (x_a - x_b) has variance 2 v ((n-1)/n)^2; summed as if independent, the
    # comparisons' information times 2/n must equal the table's.
    v = 7.0
    a = [[1.0 if r == c else -1.0 / (n - 1) for c in range(n)] for r in range(n)]
    true = [[sum(a[k][r] * a[k][c] for k in range(n)) / v for c in range(n)] for r in range(n)]
    pair_variance = 2.0 * v * ((n - 1) / n) ** 2
    pairs = [[0.0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):
        for r, c, sign in ((i, i, 1), (j, j, 1), (i, j, -1), (j, i, -1)):
            pairs[r][c] += sign / pair_variance
    weight = TableResult(tuple(NAMES[:n]), (0.0,) * n, (0.0,) * n, 10).pairwise()[0].weight
    assert weight == pytest.approx(2.0 / n)
    for r in range(n):
        for c in range(n):
            assert weight * pairs[r][c] == pytest.approx(true[r][c])


scores = st.floats(-5000.0, 5000.0, allow_nan=False)


@given(st.lists(st.tuples(scores, scores), min_size=2, max_size=10))
def test_the_pair_comparisons_are_antisymmetric_and_consistent(
    values: list[tuple[float, float]],
) -> None:
    n = len(values)
    bots = tuple(NAMES[:n])
    table = TableResult(bots, tuple(v[0] for v in values), tuple(v[1] for v in values), 50)
    games = {(g.first, g.second): g for g in table.pairwise()}
    assert len(games) == n * (n - 1) // 2
    for a, b, c in itertools.combinations(bots, 3):
        # Consistent: a over c is a over b plus b over c (the differences chain).
        chained = games[a, b].adjusted_mbb + games[b, c].adjusted_mbb
        assert games[a, c].adjusted_mbb == pytest.approx(chained, abs=1e-6)
    for game in games.values():
        # Antisymmetric: each side's score is the other's negated.
        assert game.score_for(game.first) == -game.score_for(game.second)
    # Zero-sum: a bot's comparisons against all the others add up to (n-1) times its score
    # less the table's mean, so they sum to zero over the bots.
    totals = [
        math.fsum(g.score_for(bot) for g in games.values() if bot in (g.first, g.second))
        for bot in bots
    ]
    assert math.fsum(totals) == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"bots": ("ann",)}, "bots must be a tuple of 2 to 10"),
        ({"bots": (*NAMES, "x")}, "bots must be a tuple of 2 to 10"),
        ({"bots": ("ann", "ann", "cat")}, "each bot version once"),
        ({"bots": ("ann", "", "cat")}, "got '' in"),
        ({"adjusted": (1.0, 2.0)}, "adjusted must be a tuple of 3 numbers"),
        ({"raw": (1.0, math.inf, 0.0)}, "raw must hold finite numbers, got inf"),
        ({"raw": (1.0, "2", 0.0)}, "raw must hold numbers"),
        ({"hand_count": 0}, "hand_count must be a positive integer, got 0"),
    ],
)
def test_a_bad_table_is_refused_naming_the_value(fields: dict[str, object], named: str) -> None:
    values: dict[str, object] = {
        "bots": ("ann", "bob", "cat"),
        "adjusted": (1.0, 0.0, -1.0),
        "raw": (1.0, 0.0, -1.0),
        "hand_count": 300,
    }
    values.update(fields)
    with pytest.raises(ValueError, match=named):
        TableResult(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize("weight", [0.0, -0.5, 1.5, math.nan, math.inf, True])
def test_a_games_weight_must_be_a_share_of_one_game(weight: float) -> None:
    with pytest.raises(ValueError, match="weight must be a number above 0 and at most 1"):
        GameResult("ann", "bob", 1.0, 1.0, 10, weight=weight)


def test_a_pair_sums_information_is_the_sum_of_its_games_weights() -> None:
    table = TableResult(("ann", "bob", "cat"), (3.0, 0.0, -3.0), (3.0, 0.0, -3.0), 300)
    games = [*table.pairwise(), GameResult("bob", "ann", 5.0, 5.0, 200)]
    record = pair_sums(games)[("ann", "bob")]
    # ann's side: the table's 2/3-weighted 2.0 (2/3 of 3 - 0) and the game's -5.0.
    assert record.weighted_sum == pytest.approx(2 / 3 * 2.0 - 5.0)
    assert record.information == pytest.approx(5 / 3) and record.game_count == 2


def test_the_fit_reads_a_pairs_weighted_mean_and_its_information() -> None:
    heads_up = [GameResult("ann", "bob", m, m, 200) for m in (90.0, 110.0)]
    tabled = [GameResult("ann", "bob", m, m, 200, weight=0.5) for m in (90.0, 110.0)]
    mixed = [
        GameResult("ann", "bob", 100.0, 100.0, 200),
        GameResult("ann", "bob", 40.0, 40.0, 200, weight=0.25),
    ]
    full, half = fit(pair_sums(heads_up)), fit(pair_sums(tabled))
    # Same games at half the information: the same strengths, a sqrt(2) wider interval.
    assert half.strength("ann") == pytest.approx(full.strength("ann"), rel=1e-4)
    assert half.rating("ann").sd == pytest.approx(math.sqrt(2) * full.rating("ann").sd, rel=1e-3)
    # The weighted mean: (100 + 0.25 * 40) / 1.25 = 88 between ann and bob.
    assert fit(pair_sums(mixed)).strength("ann") == pytest.approx(44.0, rel=1e-3)


def _ring_match(
    match_id: str, seats: tuple[str, ...], hands: list[tuple[tuple[int, ...], tuple[float, ...]]]
) -> MatchOutcome:
    """A ring match: per hand, each seat's net chips and adjusted result (big blind 10)."""
    return MatchOutcome(
        match_id=match_id,
        seats=tuple(SeatOutcome(i, bot, 0, i + 1, len(hands)) for i, bot in enumerate(seats)),
        hands=tuple(
            HandSummary(number, 10, nets, adjusted=adjusted)
            for number, (nets, adjusted) in enumerate(hands, start=1)
        ),
        ended_reason="hand_count",
        hands_path=None,
        duration_s=0.0,
    )


def test_a_tables_block_makes_each_bots_mean_over_the_deals_every_rotation_played() -> None:
    block = [
        _ring_match("t1", ("ann", "bob", "cat"), [((6, -3, -3), (3.0, -1.5, -1.5))]),
        _ring_match("t1-r1", ("cat", "ann", "bob"), [((0, 3, -3), (0.0, 3.0, -3.0))]),
        _ring_match(
            "t1-r2",
            ("bob", "cat", "ann"),
            [((9, -9, 0), (0.0, 0.0, 0.0)), ((1, -1, 0), (0.0, 0.0, 0.0))],
        ),
    ]
    table = table_from_block(block, ("ann", "bob", "cat"), is_rated=False)
    # Deal 1 only (deal 2 was not played by every rotation); ann: (6 + 3 + 0) / 3 chips.
    assert table.bots == ("ann", "bob", "cat") and table.hand_count == 3
    assert table.raw == pytest.approx((300.0, 100.0, -400.0))
    assert table.adjusted == pytest.approx((200.0, -150.0, -50.0))
    assert not table.is_rated
    with pytest.raises(ValueError, match="not 'ann' and 'bob' and 'dan'"):
        table_from_block(block, ("ann", "bob", "dan"))


def test_some_bots_of_a_table_not_starting_forfeit_and_all_not_starting_is_void() -> None:
    some = classify_end(EndCause.BOT_NOT_READY, attempt=1, at_fault=("bob", "cat"), seats=4)
    assert some.action is EndAction.FORFEIT and some.at_fault == ("bob", "cat")
    assert "bob and cat did not start" in some.reason
    every = classify_end(EndCause.BOT_NOT_READY, attempt=1, at_fault=("a", "b", "c"), seats=3)
    assert every.action is EndAction.VOID and every.at_fault == ("a", "b", "c")
    with pytest.raises(ValueError, match=r"1 to 3, each once"):
        classify_end(EndCause.BOT_NOT_READY, attempt=1, at_fault=("a",) * 2, seats=3)
    with pytest.raises(ValueError, match="seats must be an integer from 2 to 10, got 11"):
        classify_end(EndCause.PLAYED, attempt=1, seats=11)


@pytest.mark.parametrize(("size", "faults"), [(2, 1), (3, 1), (3, 2), (6, 2), (10, 9)])
def test_a_table_forfeit_is_zero_sum_and_costs_each_faulty_bot_the_forfeit(
    size: int, faults: int
) -> None:
    bots = tuple(NAMES[:size])
    table = forfeit_table(bots, bots[:faults], hand_count=500, forfeit_mbb=600.0)
    assert math.fsum(table.adjusted) == pytest.approx(0.0) and table.adjusted == table.raw
    assert all(table.score_for(bot) == -600.0 for bot in bots[:faults])
    assert len(set(table.adjusted[faults:])) == 1 and table.is_rated and table.hand_count == 500


def test_a_two_bot_table_forfeit_agrees_with_the_heads_up_forfeit() -> None:
    table = forfeit_table(("ann", "bob"), ("bob",), hand_count=200)
    assert table.pairwise()[0] == forfeit("ann", "bob", "bob", hand_count=200)


@pytest.mark.parametrize("at_fault", [(), ("ann", "bob", "cat"), ("dan",), ("ann", "ann")])
def test_a_table_forfeit_needs_some_but_not_all_of_its_bots_at_fault(
    at_fault: tuple[str, ...],
) -> None:
    with pytest.raises(ValueError, match="at_fault must name 1 to 2 of the bots"):
        forfeit_table(("ann", "bob", "cat"), at_fault, hand_count=300)
