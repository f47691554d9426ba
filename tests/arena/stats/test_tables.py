"""The leaderboard and the crosstable (:mod:`arena.stats.tables`)."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest

from arena.stats.intervals import estimate
from arena.stats.ratings import Rating
from arena.stats.tables import crosstable, leaderboard, significance_mark

UNITS = [
    {"ann": 100.0, "bob": -40.0, "cat": -60.0},
    {"ann": 300.0, "bob": -100.0, "cat": -200.0},
    {"ann": 200.0, "cat": -200.0},  # bob sat this deal out (a heads-up unit of ann and cat)
]


def test_leaderboard_rows_are_sorted_by_mean_best_first() -> None:
    board = leaderboard(UNITS, chips={"ann": 60, "bob": -14, "cat": -46}, hands={"ann": 6})
    assert [row.bot for row in board.rows] == ["ann", "bob", "cat"]
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert board.order_by == "mean"
    ann = board.row("ann")
    assert (ann.deals, ann.hands, ann.chips_won) == (3, 6, 60)
    assert ann.estimate == estimate([100.0, 300.0, 200.0])


def test_a_bots_estimate_is_over_the_units_it_appears_in() -> None:
    board = leaderboard(UNITS, chips={}, hands={})
    assert board.row("bob").deals == 2
    assert board.row("bob").estimate.mean == -70.0
    assert board.row("cat").estimate.mean == pytest.approx(-460.0 / 3)
    assert (board.row("bob").hands, board.row("bob").chips_won) == (0, 0)


def test_equal_means_share_a_rank_and_are_listed_by_name() -> None:
    units = [{"b": 5.0, "a": 5.0, "c": 9.0, "d": -1.0}, {"b": 5.0, "a": 5.0, "c": 9.0, "d": -1.0}]
    board = leaderboard(units, chips={}, hands={})
    assert [(row.rank, row.bot) for row in board.rows] == [(1, "c"), (2, "a"), (2, "b"), (4, "d")]


def test_bots_without_units_go_below_the_others() -> None:
    board = leaderboard([{"ann": -500.0}, {"ann": -700.0}], chips={"zed": 0}, hands={"zed": 0})
    assert [row.bot for row in board.rows] == ["ann", "zed"]
    zed = board.row("zed")
    assert zed.deals == 0 and zed.estimate.n == 0 and math.isinf(zed.estimate.high)


def test_freezeout_leaderboard_is_sorted_by_rating_ordinal() -> None:
    ratings = {
        "ann": Rating(mu=30.0, sigma=6.0, games=5),  # ordinal 12
        "bob": Rating(mu=26.0, sigma=3.0, games=9),  # ordinal 17
    }
    places = {"ann": 1.8, "bob": 1.2, "cat": 3.0}
    board = leaderboard([], chips={}, hands={}, ratings=ratings, places=places, order_by="rating")
    assert [row.bot for row in board.rows] == ["bob", "ann", "cat"]
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert board.row("bob").rating == ratings["bob"]
    assert board.row("cat").rating is None and board.row("cat").average_place == 3.0


def test_ratings_do_not_change_the_order_by_mean() -> None:
    ratings = {"ann": Rating(1.0, 1.0, 1), "bob": Rating(50.0, 1.0, 1)}
    board = leaderboard([{"ann": 10.0, "bob": -10.0}], chips={}, hands={}, ratings=ratings)
    assert [row.bot for row in board.rows] == ["ann", "bob"]


def test_unknown_bot_row_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        leaderboard(UNITS, chips={}, hands={}).row("nobody")


def test_leaderboard_to_dict_is_json_ready() -> None:
    board = leaderboard(
        UNITS,
        chips={"ann": 60},
        hands={"ann": 6},
        ratings={"ann": Rating(27.0, 2.0, 3)},
        places={"ann": 1.5},
    )
    data = board.to_dict()
    json.dumps(data, allow_nan=False)
    first = data["rows"][0]
    assert first["bot"] == "ann" and first["rank"] == 1 and first["deals"] == 3
    assert first["mbb_per_hand"]["mean"] == 200.0
    assert first["rating"]["ordinal"] == 21.0 and first["average_place"] == 1.5
    assert data["rows"][1]["rating"] is None and data["order_by"] == "mean"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"units": "x"}, "units must be a sequence of bot -> mbb mappings, got 'x'"),
        ({"units": [{"a": 1.0}, 3]}, "unit 1 is not a bot -> mbb mapping: 3"),
        ({"units": [{"a": math.nan}]}, "unit 0: 'a' has nan, not a finite number"),
        ({"units": [{"": 1.0}]}, "unit 0: bot '' is not a name"),
        ({"chips": {"a": 1.5}}, "chips: 'a' has 1.5, not an integer"),
        ({"chips": [("a", 1)]}, "chips must be a mapping of bot names, got [('a', 1)]"),
        ({"hands": {"a": True}}, "hands: 'a' has True, not an integer"),
        ({"hands": {3: 1}}, "hands: bot 3 is not a name"),
        ({"places": {"a": math.inf}}, "places: 'a' has inf, not a finite number"),
        ({"ratings": {"a": 3.0}}, "ratings: 'a' has 3.0, not a Rating"),
        ({"order_by": "chips"}, "order_by must be 'mean' or 'rating', got 'chips'"),
        ({"order_by": "rating"}, "order_by='rating' needs ratings"),
    ],
)
def test_bad_leaderboard_input_is_named(arguments: dict[str, Any], message: str) -> None:
    call: dict[str, Any] = {"units": [{"a": 1.0}], "chips": {}, "hands": {}} | arguments
    with pytest.raises(ValueError, match=re.escape(message)):
        leaderboard(**call)


# -- crosstable -----------------------------------------------------------------------------


def test_crosstable_mirrors_a_heads_up_pair_with_the_negatives() -> None:
    values = [120.0, -30.0, 80.0, 10.0, 0.0]
    table = crosstable({("ann", "bob"): values})
    assert table.bots == ("ann", "bob")
    ann, bob = table.cell("ann", "bob"), table.cell("bob", "ann")
    assert ann is not None and bob is not None
    assert ann.estimate == estimate(values)
    assert bob.estimate.mean == -ann.estimate.mean
    assert (bob.estimate.low, bob.estimate.high) == pytest.approx(
        (-ann.estimate.high, -ann.estimate.low)
    )
    assert table.cell("ann", "ann") is None


def test_both_directions_given_are_used_as_they_are() -> None:
    table = crosstable({("a", "b"): [1.0, 2.0], ("b", "a"): [7.0, 9.0]})
    cell = table.cell("b", "a")
    assert cell is not None and cell.estimate.mean == 8.0


@pytest.mark.parametrize(
    ("values", "mark"),
    [
        # mean 3, standard error 0.71 with 4 degrees of freedom: t = 4.24, between the 95%
        # (2.78) and the 99% (4.60) critical values.
        ([1.0, 2.0, 3.0, 4.0, 5.0], "+"),
        ([-1.0, -2.0, -3.0, -4.0, -5.0], "-"),
        ([50.0, 60.0, 55.0, 58.0], "++"),  # t = 25 > 5.84
        ([-50.0, -60.0, -55.0, -58.0], "--"),
        ([-1.0, 1.0, 2.0], ""),
        ([5.0], ""),  # one unit: the interval is infinite
    ],
)
def test_significance_marks_at_95_and_99_percent(values: list[float], mark: str) -> None:
    assert significance_mark(values) == mark
    (cell, mirrored) = crosstable({("a", "b"): values}).cells
    assert cell.mark == mark
    assert mirrored.mark == mark.translate(str.maketrans("+-", "-+"))


def test_crosstable_rows_follow_the_bots_given() -> None:
    table = crosstable(
        {("a", "b"): [1.0, 2.0], ("c", "a"): [3.0, 4.0]}, bots=["c", "b", "a", "idle"]
    )
    assert table.bots == ("c", "b", "a", "idle")
    assert [(cell.row, cell.column) for cell in table.cells] == [
        ("c", "a"),
        ("b", "a"),
        ("a", "c"),
        ("a", "b"),
    ]
    default = crosstable({("a", "b"): [1.0, 2.0], ("c", "a"): [3.0, 4.0]})
    assert default.bots == ("a", "b", "c")


def test_crosstable_to_dict_is_json_ready() -> None:
    data = crosstable({("a", "b"): [0.0, 0.0, 0.0], ("a", "c"): [4.0]}).to_dict()
    json.dumps(data, allow_nan=False)
    assert data["bots"] == ["a", "b", "c"]
    first = data["cells"][0]
    assert (first["row"], first["column"], first["mark"]) == ("a", "b", "")
    mirrored = data["cells"][2]
    # A mirrored zero is 0.0, never -0.0, in the results file.
    assert (mirrored["row"], mirrored["column"]) == ("b", "a")
    assert math.copysign(1.0, mirrored["mbb_per_hand"]["mean"]) == 1.0
    assert data["cells"][1]["mbb_per_hand"]["high"] is None


@pytest.mark.parametrize(
    ("pair_units", "bots", "message"),
    [
        ([("a", "b")], None, "pair_units must map (bot, bot) pairs to values"),
        ({"ab": [1.0]}, None, "pair_units key 'ab' is not a (bot, bot) pair"),
        ({("a", "b", "c"): [1.0]}, None, "pair_units key ('a', 'b', 'c') is not a (bot, bot)"),
        ({("a", "a"): [1.0]}, None, "pair_units key ('a', 'a') pairs a bot with itself"),
        ({("a", 3): [1.0]}, None, "pair_units: bot 3 is not a name"),
        (
            {("a", "b"): [1.0, math.inf]},
            None,
            "pair_units ('a', 'b'): value 1 is not a finite number: inf",
        ),
        ({("a", "b"): [1.0]}, ["a"], "bots ['a'] leave out ['b']"),
        ({("a", "b"): [1.0]}, ["a", "b", "a"], "bots ['a', 'b', 'a'] name a bot twice"),
    ],
)
def test_bad_crosstable_input_is_named(pair_units: Any, bots: Any, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        crosstable(pair_units, bots)
